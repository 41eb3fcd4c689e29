package progsep

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// BrokerName is the name the in-container broker is started under (a
// binary linking this package, the stage images' helper, run as the
// container's root): `srb-launch-broker --socket PATH --uids BASE`.
const BrokerName = "srb-launch-broker"

// BrokerMain serves a container's launcher until it is killed: every
// caller but root may launch; each launch runs as the next uid from BASE
// (never one of the image's), its only supplementary group the caller's
// gid, through ladder/proc (a PID namespace where the container allows
// one, else a subreaper), in the caller's working folder, with a HOME and
// TMPDIR of its own under the socket's folder; when it ends every process
// of its uid is killed (as root: kill needs no namespace) and its HOME
// removed. No namespace, network or mount, is made: the container's are
// the caller's.
func BrokerMain(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(BrokerName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sock := fs.String("socket", "", "the socket to serve")
	base := fs.Int("uids", 0, "the first uid launched programs run as")
	if err := fs.Parse(args); err != nil || *sock == "" || *base <= 0 {
		fmt.Fprintln(stderr, "usage: srb-launch-broker --socket PATH --uids BASE")
		return 2
	}
	dir := filepath.Dir(*sock)
	homes := filepath.Join(dir, "home")
	for _, d := range []string{dir, homes} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	os.Chmod(homes, 0o711)
	os.Remove(*sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: *sock, Net: "unix"})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// Any user may connect; root's requests are refused by launch.
	os.Chmod(*sock, 0o666)
	var next atomic.Int64
	launch := func(ctx context.Context, req Request, stdio [3]*os.File, stop <-chan struct{}) Reply {
		uid := *base + int(next.Add(1)%1_000_000)
		return launchAs(req, stdio, stop, uid, *base, filepath.Join(homes, strconv.Itoa(uid)))
	}
	Serve(ln, -1, launch)
	select {}
}

// launchAs is one launch of the in-container broker, as uid (floor is
// the first uid the broker draws: what is below it is never cleared).
// Before and after it, every process of the uid is ended and what the uid
// left in the shared temporary folders (/tmp, /var/tmp, /dev/shm) and
// System V objects it owns are removed (hostuser.ClearSharedFrom): a
// program that left files at names a candidate would write its expected
// output to (/tmp/want, read-only in a sticky folder) made that candidate
// compare against the program's own answer (a break attempt of issue 14).
func launchAs(req Request, stdio [3]*os.File, stop <-chan struct{}, uid, floor int, home string) Reply {
	fail := func(err error) Reply { return Reply{Code: -1, Error: err.Error()} }
	if req.PeerUID == 0 {
		return fail(errors.New("root launches nothing"))
	}
	if req.PeerGID == 0 {
		// The launched program gets the caller's gid as a group, and
		// root's group sees every process in the container's /proc
		// (engine.Hardening.ProcHidden).
		return fail(errors.New("a caller of root's group launches nothing"))
	}
	sweepUID(uid)
	if err := hostuser.ClearSharedFrom(uid, floor); err != nil {
		return fail(fmt.Errorf("clear what uid %d left before the launch: %w", uid, err))
	}
	reply := launchSwept(req, stdio, stop, uid, home)
	// After the sweep launchSwept ends with: what the program left in the
	// shared folders must not reach the candidate, or its next launch.
	if err := hostuser.ClearSharedFrom(uid, floor); err != nil {
		return fail(fmt.Errorf("clear what the launched program left: %w", err))
	}
	return reply
}

// launchSwept is [launchAs] once uid has no process and nothing in the
// shared folders: it runs the program and ends every process of uid.
func launchSwept(req Request, stdio [3]*os.File, stop <-chan struct{}, uid int, home string) Reply {
	fail := func(err error) Reply { return Reply{Code: -1, Error: err.Error()} }
	os.RemoveAll(home)
	if err := os.Mkdir(home, 0o700); err != nil {
		return fail(err)
	}
	defer os.RemoveAll(home)
	if err := os.Chown(home, uid, uid); err != nil {
		return fail(err)
	}
	env := make([]string, 0, len(req.Env)+2)
	for _, kv := range req.Env {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "TMPDIR" {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "TMPDIR="+home)
	launched := &Creds{UID: uid, GID: uid, Groups: []int{req.PeerGID}}
	dir, work, copied, err := PrepareCwd(req, home, launched, os.RemoveAll)
	if err != nil {
		return fail(err)
	}
	if work != "" {
		defer os.RemoveAll(work)
	}
	p, err := proc.Start(proc.Spec{Path: req.Path, Argv: req.Argv, Dir: dir, Env: env,
		Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2], WaitDelay: 2 * time.Second,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{uint32(req.PeerGID)}}})
	if err != nil {
		return fail(err)
	}
	defer sweepUID(uid)
	go func() {
		select {
		case <-stop:
			p.Terminate(2 * time.Second)
		case <-p.Done():
		}
	}()
	e := p.Wait()
	if work != "" && e.Err == nil {
		// Nothing of the uid may still write its folder while it comes
		// back.
		sweepUID(uid)
		if err := FinishCwd(req, work, copied, launched); err != nil {
			return fail(err)
		}
	}
	switch {
	case e.Err != nil:
		return fail(e.Err)
	case e.Signal != 0:
		return Reply{Code: -1, Signal: int(e.Signal)}
	}
	return Reply{Code: e.Code}
}

// PrepareCwd is a broker's first step of a launch with [Request.CopyCwd]
// (nothing without it): the folder home+".cwd", made (root's step: with
// mkdir's 0700, owned by launched) and filled with a copy of req.Dir read
// as launched ([CopyIn]). It returns the folder the program runs in
// (req.Dir without the copy), the copy ("" without it) and what was
// carried in; removeAll removes a copy an earlier launch left.
func PrepareCwd(req Request, home string, launched *Creds, removeAll func(string) error) (dir, work string, copied Copied, err error) {
	if !req.CopyCwd {
		return req.Dir, "", nil, nil
	}
	work = home + ".cwd"
	removeAll(work)
	if err := os.Mkdir(work, 0o700); err != nil {
		return "", "", nil, err
	}
	if err := os.Chown(work, launched.UID, launched.GID); err != nil {
		removeAll(work)
		return "", "", nil, err
	}
	if copied, err = CopyIn(req.Dir, work, launched); err != nil {
		removeAll(work)
		return "", "", nil, fmt.Errorf("copy the working folder: %w", err)
	}
	return work, work, copied, nil
}

// FinishCwd brings what the program wrote in its copy (work) back into
// req.Dir, written as the caller ([CopyBack]); the broker calls it once
// no process of launched's uid is left.
func FinishCwd(req Request, work string, copied Copied, launched *Creds) error {
	caller := &Creds{UID: req.PeerUID, GID: req.PeerGID, Groups: []int{req.PeerGID}}
	if _, err := CopyBack(work, req.Dir, copied, launched, caller); err != nil {
		return fmt.Errorf("bring back what the program wrote: %w", err)
	}
	return nil
}

// sweepUID SIGKILLs every process whose real, effective or saved uid is
// uid, until none is left (a subreaper's escapees included).
func sweepUID(uid int) {
	for round := 0; round < 100; round++ {
		ents, _ := os.ReadDir("/proc")
		found := false
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/status")
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 4 && f[0] == "Uid:" {
					for _, id := range f[1:4] {
						if id == strconv.Itoa(uid) {
							syscall.Kill(pid, syscall.SIGKILL)
							found = true
						}
					}
				}
			}
		}
		if !found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

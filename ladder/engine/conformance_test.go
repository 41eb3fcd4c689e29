package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// backend is one implementation of the execution interface under the
// conformance table: start starts a session; denyNet says a spec without
// a network gets none; gone checks that a closed session left nothing.
type backend struct {
	name    string
	start   func(t *testing.T, spec Spec) *Session
	denyNet bool
	gone    func(t *testing.T, s *Session)
}

// backends are Docker (when the engine is up; SRB_REQUIRE_ENGINES=1
// makes it mandatory), the Fake and this machine's Local.
func backends() []backend {
	return []backend{
		{name: "docker", denyNet: true,
			start: func(t *testing.T, spec Spec) *Session { _, s := startTools(t, spec); return s },
			gone: func(t *testing.T, s *Session) {
				d := requireEngine(t, "docker")
				if _, err := d.Client.ContainerInspect(t.Context(), s.ID); err == nil {
					t.Errorf("container %s is still there after Close", s.ID)
				}
			}},
		{name: "fake",
			start: func(t *testing.T, spec Spec) *Session { return startSession(t, &Fake{HostPaths: true}, spec) },
			gone:  rootGone},
		{name: "local", denyNet: os.Geteuid() == 0,
			start: func(t *testing.T, spec Spec) *Session { return startSession(t, &Local{}, spec) },
			gone:  rootGone},
	}
}

// startSession starts spec on r, closed when the test ends.
func startSession(t *testing.T, r Runner, spec Spec) *Session {
	t.Helper()
	s, err := r.Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return s
}

// rootGone checks that a session on this machine left no root folder.
func rootGone(t *testing.T, s *Session) {
	if _, err := os.Lstat(s.Path("/")); !os.IsNotExist(err) {
		t.Errorf("the session's root folder %s is still there after Close: %v", s.Path("/"), err)
	}
}

// marker is a sleep's argument no other process of this machine has.
func marker() string { return fmt.Sprintf("9%04d.%03d", rand.IntN(10000), rand.IntN(1000)) }

// running counts the processes of this machine (a local Docker's
// containers' included) whose command line holds word.
func running(word string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(word)) {
			n++
		}
	}
	return n
}

// seesHostProcs says whether this machine's /proc shows s's processes
// (a Docker engine on this machine does).
func seesHostProcs(s *Session) bool {
	if _, err := s.HostPID(context.Background()); err == nil {
		return true
	}
	_, ok := s.c.(HostPIDer)
	return !ok // the fake and the local run here
}

// The execution interface's contract, one table for every backend: exec
// with its exit code, streams, environment, working folder and stdin;
// a missing program is exit 127; the timeout ends the whole group;
// output is capped; a copy in and out keeps modes and links; an owned
// copy is the command's to write; Kill ends what runs and leaves the
// files; Close leaves nothing; no network unless asked; a process left
// behind is gone by Kill (and, on this machine, when its Exec returns).
func TestConformance(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Run("exec", func(t *testing.T) {
				s := b.start(t, Spec{Env: []string{"FROM_SPEC=1"}})
				if err := s.CopyIn(t.Context(), t.TempDir(), "/work/here"); err != nil {
					t.Fatal(err)
				}
				r := sh(t, s, `echo "$FROM_SPEC $X $(pwd) $(cat)"; echo oops >&2; exit 3`, func(es *ExecSpec) {
					es.Env = []string{"X=y"}
					es.WorkDir = "/work/here"
					es.Stdin = strings.NewReader("from stdin")
				})
				want := "1 y " + s.Path("/work/here") + " from stdin\n"
				if r.ExitCode != 3 || string(r.Stdout) != want || string(r.Stderr) != "oops\n" || r.TimedOut {
					t.Errorf("exit %d stdout %q stderr %q timedout %v; want 3, %q, oops", r.ExitCode, r.Stdout, r.Stderr, r.TimedOut, want)
				}
				// A working folder Session.Path gave is the same folder.
				r = sh(t, s, `pwd`, func(es *ExecSpec) { es.WorkDir = s.Path("/work/here") })
				if string(r.Stdout) != s.Path("/work/here")+"\n" {
					t.Errorf("pwd in Session.Path's folder: %q %q", r.Stdout, r.Stderr)
				}
				r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"no-such-program"}})
				if err != nil || r.ExitCode != 127 {
					t.Errorf("a missing program: %+v, %v; want exit 127 and no error", r, err)
				}
			})
			t.Run("timeout", func(t *testing.T) {
				s := b.start(t, Spec{})
				m := marker()
				start := time.Now()
				r := sh(t, s, `trap "" TERM; echo started; sleep `+m+` & sleep `+m+` & wait`, func(es *ExecSpec) {
					es.Timeout = 300 * time.Millisecond
					es.Grace = 300 * time.Millisecond
				})
				if el := time.Since(start); el > 10*time.Second {
					t.Errorf("a timed-out exec returned after %v", el)
				}
				if !r.TimedOut || string(r.Stdout) != "started\n" {
					t.Errorf("timedout %v stdout %q", r.TimedOut, r.Stdout)
				}
				if seesHostProcs(s) {
					if n := running(m); n != 0 {
						t.Errorf("%d of the group's sleeps outlived the timeout", n)
					}
				}
			})
			t.Run("output", func(t *testing.T) {
				s := b.start(t, Spec{})
				r := sh(t, s, `i=0; while [ $i -lt 100 ]; do printf x; printf y >&2; i=$((i+1)); done`, func(es *ExecSpec) { es.MaxOutput = 10 })
				if string(r.Stdout) != "xxxxxxxxxx" || r.StdoutDropped != 90 || string(r.Stderr) != "yyyyyyyyyy" || r.StderrDropped != 90 {
					t.Errorf("capped: %q (%d dropped), %q (%d dropped)", r.Stdout, r.StdoutDropped, r.Stderr, r.StderrDropped)
				}
				// With Tail, the last bytes: the stream's end.
				r = sh(t, s, `i=0; while [ $i -lt 100 ]; do printf x; printf y >&2; i=$((i+1)); done; printf END; printf DNE >&2`, func(es *ExecSpec) {
					es.MaxOutput = 10
					es.Tail = true
				})
				if string(r.Stdout) != "xxxxxxxEND" || r.StdoutDropped != 93 || string(r.Stderr) != "yyyyyyyDNE" || r.StderrDropped != 93 {
					t.Errorf("tail: %q (%d dropped), %q (%d dropped)", r.Stdout, r.StdoutDropped, r.Stderr, r.StderrDropped)
				}
			})
			t.Run("copy", func(t *testing.T) {
				src := sampleTree(t)
				s := b.start(t, Spec{Copies: []Copy{{HostPath: src, ContainerPath: "/srb/statea"}}})
				out := filepath.Join(t.TempDir(), "out")
				if err := s.CopyOut(t.Context(), "/srb/statea", out); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tree(t, src), tree(t, out)); diff != "" {
					t.Errorf("round trip (-in +out):\n%s", diff)
				}
				// Modification times travel too (a tree's snapshot keeps
				// its build cache no newer than what it was built from).
				for _, rel := range []string{"sub/data", "sub"} {
					in, err1 := os.Stat(filepath.Join(src, rel))
					got, err2 := os.Stat(filepath.Join(out, rel))
					if err1 != nil || err2 != nil || !got.ModTime().Equal(in.ModTime().Truncate(time.Second)) && !got.ModTime().Equal(in.ModTime()) {
						t.Errorf("%s's modification time: %v in, %v out (%v %v)", rel, in.ModTime(), got.ModTime(), err1, err2)
					}
				}
				// An owned copy is the command's own: it runs the script,
				// follows the link and writes beside them.
				if err := s.CopyInOwned(t.Context(), src, "/work/mine", 1234, 1234); err != nil {
					t.Fatal(err)
				}
				mine := s.Path("/work/mine")
				r := sh(t, s, `cd "$1" && ./run.sh && cat link && echo made >made`, func(es *ExecSpec) {
					es.Argv = append(es.Argv, "sh", mine)
					es.User = "1234:1234"
				})
				if r.ExitCode != 0 || string(r.Stdout) != "ran\ndata" {
					t.Errorf("in the owned copy: exit %d, %q %q", r.ExitCode, r.Stdout, r.Stderr)
				}
				if b.name == "docker" {
					// The owners the copy names, not the container's user's
					// (Docker's CopyUIDGID hands every file to the user an
					// image names, root in srb's stage images: a warm
					// command's HOME arrived root's; TestLadderInImage).
					r := sh(t, s, `for f in "$1" "$1/run.sh"; do test -O "$f" && test -G "$f" && echo mine; done`, func(es *ExecSpec) {
						es.Argv = append(es.Argv, "sh", mine)
						es.User = "1234:1234"
					})
					if string(r.Stdout) != "mine\nmine\n" {
						t.Errorf("owned copy's owners: %q %q", r.Stdout, r.Stderr)
					}
				}
				file := filepath.Join(t.TempDir(), "made.txt")
				if err := s.CopyOut(t.Context(), "/work/mine/made", file); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(file); string(got) != "made\n" {
					t.Errorf("a file copied out: %q", got)
				}
				if err := s.CopyOut(t.Context(), "/no/such/path", filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrNoPath) {
					t.Errorf("copy out of a missing path: %v, want ErrNoPath", err)
				}
			})
			t.Run("kill", func(t *testing.T) {
				s := b.start(t, Spec{})
				if err := s.CopyIn(t.Context(), sampleTree(t), "/srb/kept"); err != nil {
					t.Fatal(err)
				}
				m := marker()
				done := make(chan *Result, 1)
				go func() {
					r, _ := s.Exec(context.Background(), ExecSpec{Argv: []string{"sh", "-c", "sleep " + m}})
					done <- r
				}()
				for deadline := time.Now().Add(10 * time.Second); seesHostProcs(s) && running(m) == 0 && time.Now().Before(deadline); {
					time.Sleep(20 * time.Millisecond)
				}
				if err := s.Kill(t.Context()); err != nil {
					t.Fatal(err)
				}
				select {
				case <-done:
				case <-time.After(15 * time.Second):
					t.Fatal("a running exec outlived Kill")
				}
				if err := s.Kill(t.Context()); err != nil {
					t.Errorf("a second Kill: %v", err)
				}
				if _, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"true"}}); err == nil {
					t.Error("an exec after Kill ran")
				}
				out := filepath.Join(t.TempDir(), "out")
				if err := s.CopyOut(t.Context(), "/srb/kept/sub/data", out); err != nil {
					t.Errorf("copy out of a killed session: %v", err)
				}
				if seesHostProcs(s) {
					if n := running(m); n != 0 {
						t.Errorf("%d process(es) outlived Kill", n)
					}
				}
			})
			t.Run("leftover", func(t *testing.T) {
				s := b.start(t, Spec{})
				m := marker()
				r := sh(t, s, `(sleep `+m+` >/dev/null 2>&1 &); echo left`)
				if string(r.Stdout) != "left\n" {
					t.Fatalf("stdout %q", r.Stdout)
				}
				if !seesHostProcs(s) {
					t.Skip("this machine cannot see the backend's processes")
				}
				if b.name != "docker" {
					// On this machine nothing outlives its Exec.
					if n := running(m); n != 0 {
						t.Errorf("%d process(es) left behind outlived their Exec", n)
					}
				}
				s.Kill(t.Context())
				if n := running(m); n != 0 {
					t.Errorf("%d process(es) left behind outlived Kill", n)
				}
			})
			t.Run("delete", func(t *testing.T) {
				s := b.start(t, Spec{})
				if err := s.CopyInOwned(t.Context(), sampleTree(t), "/work/mine", 1234, 1234); err != nil {
					t.Fatal(err)
				}
				outside := s.Path("/work/outside")
				if err := s.CopyIn(t.Context(), sampleTree(t), "/work/outside"); err != nil {
					t.Fatal(err)
				}
				// The command's user leaves a folder it may not write
				// in, and a link out of its folder.
				r := sh(t, s, `cd "$1" && mkdir -p locked/in && echo x >locked/in/f && chmod 500 locked/in locked && ln -s "$2" out`, func(es *ExecSpec) {
					es.Argv = append(es.Argv, "sh", s.Path("/work/mine"), outside)
					es.User = "1234:1234"
				})
				if r.ExitCode != 0 {
					t.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
				}
				if b.name == "local" {
					// On this machine the grader removes it: a path through
					// the link is refused.
					if err := s.Delete(t.Context(), "/work/mine/out/sub"); err == nil {
						t.Error("a delete through a link the command planted went ahead")
					}
				}
				// The link itself goes, never what it names.
				if err := s.Delete(t.Context(), "/work/mine/out"); err != nil {
					t.Fatal(err)
				}
				if err := s.CopyOut(t.Context(), "/work/outside/sub/data", filepath.Join(t.TempDir(), "d")); err != nil {
					t.Errorf("what the link named: %v", err)
				}
				if err := s.Delete(t.Context(), "/work/mine"); err != nil {
					t.Fatal(err)
				}
				if err := s.CopyOut(t.Context(), "/work/mine", filepath.Join(t.TempDir(), "m")); !errors.Is(err, ErrNoPath) {
					t.Errorf("copy out of a deleted folder: %v, want ErrNoPath", err)
				}
				if err := s.Delete(t.Context(), "/work/mine"); err != nil {
					t.Errorf("deleting what is not there: %v", err)
				}
				if err := s.Delete(t.Context(), "/"); err == nil {
					t.Error("deleting / went ahead")
				}
				// The session still runs commands.
				if r := sh(t, s, `echo alive`); string(r.Stdout) != "alive\n" {
					t.Errorf("after Delete: %q %q", r.Stdout, r.Stderr)
				}
			})
			t.Run("reap", func(t *testing.T) {
				s := b.start(t, Spec{})
				m := marker()
				user := "1234:1234"
				if b.name == "fake" {
					user = "" // the fake runs as this process's user
				}
				file := "/tmp/srb-reap-" + m
				r := sh(t, s, `(sleep `+m+` >/dev/null 2>&1 &); echo x >`+file+`; mkdir -p /tmp/srb-reap-dir-`+m+` && echo y >/tmp/srb-reap-dir-`+m+`/f; echo left`, func(es *ExecSpec) {
					es.User = user
				})
				t.Cleanup(func() { os.Remove(file); os.RemoveAll("/tmp/srb-reap-dir-" + m) })
				if string(r.Stdout) != "left\n" {
					t.Fatalf("exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
				}
				reaped, err := s.Reap(t.Context(), user)
				if err != nil {
					t.Fatal(err)
				}
				if want := b.name == "docker"; reaped != want {
					// In a container what an exec left runs until Reap; on
					// this machine nothing outlives its Exec.
					t.Errorf("Reap ended a process: %v, want %v", reaped, want)
				}
				if seesHostProcs(s) && running(m) != 0 {
					t.Errorf("a process left behind outlived Reap")
				}
				if b.name != "fake" && (b.name != "local" || os.Geteuid() == 0) {
					// What the user left in the shared folders is gone.
					r := sh(t, s, `for f in `+file+` /tmp/srb-reap-dir-`+m+`; do [ -e "$f" ] && echo "$f"; done; echo done`)
					if string(r.Stdout) != "done\n" {
						t.Errorf("left in /tmp after Reap: %q", r.Stdout)
					}
				}
				// The sandbox's own processes are spared: it still runs.
				if r := sh(t, s, `echo alive`); string(r.Stdout) != "alive\n" {
					t.Errorf("after Reap: %q %q", r.Stdout, r.Stderr)
				}
			})
			t.Run("network", func(t *testing.T) {
				if !b.denyNet {
					t.Skip("this backend does not deny the network")
				}
				s := b.start(t, Spec{})
				r := sh(t, s, `n=0; while read -r line; do n=$((n+1)); done </proc/net/dev; echo $n`)
				if strings.TrimSpace(string(r.Stdout)) != "3" { // two header lines and lo
					t.Errorf("/proc/net/dev has %q lines, want 3 (loopback only): %q", r.Stdout, r.Stderr)
				}
			})
			t.Run("close", func(t *testing.T) {
				s := b.start(t, Spec{})
				if err := s.CopyIn(t.Context(), sampleTree(t), "/srb/x"); err != nil {
					t.Fatal(err)
				}
				if err := s.Close(t.Context()); err != nil {
					t.Fatal(err)
				}
				b.gone(t, s)
			})
		})
	}
}

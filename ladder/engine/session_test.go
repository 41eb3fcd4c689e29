package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostToolsImage loads an image whose only content is the host's /bin/sh,
// sleep, cat, rm, find, mkdir, chmod and ln (Session.Delete and Reap use rm
// and find; the conformance table the rest) with the shared libraries ldd says they need (so the test
// depends on no base image), tagged name.
func hostToolsImage(t *testing.T, d *Docker, name string) {
	t.Helper()
	files := map[string]string{} // image path -> host path
	for _, tool := range []string{"/bin/sh", "sleep", "cat", "rm", "find", "mkdir", "chmod", "ln"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("host has no %s to build a test image from", tool)
		}
		real, _ := filepath.EvalSymlinks(p)
		files["bin/"+filepath.Base(tool)] = real
		out, err := exec.Command("ldd", real).Output()
		if err != nil {
			t.Skipf("ldd %s: %v (a static host tool set is needed)", real, err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			for _, f := range strings.Fields(line) {
				if strings.HasPrefix(f, "/") {
					r, err := filepath.EvalSymlinks(f)
					if err == nil {
						files[strings.TrimPrefix(f, "/")] = r
					}
				}
			}
		}
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var layer bytes.Buffer
	lw := tar.NewWriter(&layer)
	dirs := map[string]bool{}
	for _, n := range names {
		for d := filepath.Dir(n); d != "."; d = filepath.Dir(d) {
			if !dirs[d] {
				dirs[d] = true
				lw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o755, Typeflag: tar.TypeDir})
			}
		}
	}
	for _, d := range []string{"tmp", "work"} {
		lw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o1777, Typeflag: tar.TypeDir})
	}
	for _, n := range names {
		b, err := os.ReadFile(files[n])
		if err != nil {
			t.Fatal(err)
		}
		lw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg})
		lw.Write(b)
	}
	lw.Close()
	sum := sha256.Sum256(layer.Bytes())
	cfg, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Env": []string{"PATH=/bin"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(sum[:])}},
	})
	csum := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(csum[:]) + ".json"
	man, _ := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{name}, "Layers": []string{"layer.tar"}}})
	var out bytes.Buffer
	w := tar.NewWriter(&out)
	for _, f := range []struct {
		name string
		data []byte
	}{{cfgName, cfg}, {"layer.tar", layer.Bytes()}, {"manifest.json", man}} {
		w.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		w.Write(f.data)
	}
	w.Close()
	if _, err := d.Load(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
}

var toolsOnce sync.Once

// startTools starts a Session of the host-tools image.
func startTools(t *testing.T, spec Spec) (*Docker, *Session) {
	t.Helper()
	d := requireEngine(t, "docker")
	toolsOnce.Do(func() { hostToolsImage(t, d, "srb-test/tools:1") })
	spec.Image = "srb-test/tools:1"
	s, err := d.Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return d, s
}

// sh runs a shell line in s.
func sh(t *testing.T, s *Session, line string, mod ...func(*ExecSpec)) *Result {
	t.Helper()
	es := ExecSpec{Argv: []string{"sh", "-c", line}}
	for _, m := range mod {
		m(&es)
	}
	r, err := s.Exec(t.Context(), es)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSessionExec: a session's container has no network, the labels and
// limits asked for, and runs commands with their env, workdir, user and
// stdin, returning exit code and both streams apart.
func TestSessionExec(t *testing.T) {
	d, s := startTools(t, Spec{Labels: map[string]string{"srb.stage": "test"}, Memory: 256 << 20, Pids: 64, Env: []string{"FROM_SPEC=1"}})
	in, err := d.Client.ContainerInspect(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if in.HostConfig.NetworkMode != "none" || in.Config.Labels["srb.stage"] != "test" || in.HostConfig.Memory != 256<<20 || *in.HostConfig.PidsLimit != 64 {
		t.Errorf("network %q labels %v memory %d pids %d", in.HostConfig.NetworkMode, in.Config.Labels, in.HostConfig.Memory, *in.HostConfig.PidsLimit)
	}
	r := sh(t, s, `echo "$FROM_SPEC $X $(pwd) $(cat)"; echo oops >&2; exit 3`, func(es *ExecSpec) {
		es.Env = []string{"X=y"}
		es.WorkDir = "/tmp"
		es.Stdin = strings.NewReader("from stdin")
	})
	if r.ExitCode != 3 || string(r.Stdout) != "1 y /tmp from stdin\n" || string(r.Stderr) != "oops\n" || r.TimedOut {
		t.Errorf("exit %d stdout %q stderr %q timedout %v", r.ExitCode, r.Stdout, r.Stderr, r.TimedOut)
	}
	r = sh(t, s, `cat /proc/self/status | while read k v rest; do [ "$k" = Uid: ] && echo $v; done`, func(es *ExecSpec) { es.User = "1234:1234" })
	if string(r.Stdout) != "1234\n" {
		t.Errorf("as user 1234: uid %q", r.Stdout)
	}
	r = sh(t, s, `i=0; while [ $i -lt 100 ]; do printf x; i=$((i+1)); done`, func(es *ExecSpec) { es.MaxOutput = 10 })
	if string(r.Stdout) != "xxxxxxxxxx" || r.StdoutDropped != 90 {
		t.Errorf("bounded stdout %q, dropped %d; want 10 x, 90", r.Stdout, r.StdoutDropped)
	}
	if _, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"no-such-program"}}); err != nil {
		t.Errorf("a missing program is an exit code, got error %v", err)
	}
}

// sleepers counts the processes in s named sleep.
func sleepers(t *testing.T, s *Session) int {
	r := sh(t, s, `n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done; echo $n`)
	var n int
	if _, err := fmt.Sscan(string(r.Stdout), &n); err != nil {
		t.Fatalf("counting sleepers: %q %v", r.Stdout, err)
	}
	return n
}

// TestSessionExecTimeout: at the timeout the whole process group goes —
// children too, and a leader that ignores SIGTERM — and what was printed
// before is kept.
func TestSessionExecTimeout(t *testing.T) {
	_, s := startTools(t, Spec{})
	base := sleepers(t, s) // the container's own "sleep infinity"
	start := time.Now()
	r := sh(t, s, `trap "" TERM; echo started; sleep 100 & sleep 100 & wait`, func(es *ExecSpec) {
		es.Timeout = 300 * time.Millisecond
		es.Grace = 300 * time.Millisecond
	})
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("timed-out exec returned after %v", el)
	}
	if !r.TimedOut || string(r.Stdout) != "started\n" {
		t.Errorf("timedout %v stdout %q", r.TimedOut, r.Stdout)
	}
	if n := sleepers(t, s); n != base {
		t.Errorf("%d sleep processes after the timeout, want %d (the group was not killed)", n, base)
	}
	// ctx ending does the same, and says so.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	r, err := s.Exec(ctx, ExecSpec{Argv: []string{"sh", "-c", "echo a; sleep 100"}, Grace: 200 * time.Millisecond})
	if err == nil || r == nil || string(r.Stdout) != "a\n" {
		t.Errorf("ctx end: %v, %+v", err, r)
	}
	if n := sleepers(t, s); n != base {
		t.Errorf("%d sleep processes after ctx ended, want %d", n, base)
	}
}

// tree lists a folder as "path mode [-> target | content]" lines.
func tree(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		info, _ := d.Info()
		line := rel + " " + info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case info.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			line += " " + string(b)
		}
		out = append(out, line)
		return nil
	})
	return out
}

// sampleTree writes a folder with modes, a link and a nested folder.
func sampleTree(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho ran\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "data"), []byte("data"), 0o640)
	os.WriteFile(filepath.Join(dir, "sub", "deep", "x"), []byte("x"), 0o600)
	os.Symlink("sub/data", filepath.Join(dir, "link"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "abs-link"))
	return dir
}

// TestSessionCopy: a folder copied in and out again is the same tree
// (modes, links, content); a single file comes out as a file; paths
// listed ReadOnly cannot be written from inside but still copy out; a
// killed container still copies out; Close removes it.
func TestSessionCopy(t *testing.T) {
	src := sampleTree(t)
	d, s := startTools(t, Spec{Copies: []Copy{{HostPath: src, ContainerPath: "/srb/statea"}}, ReadOnly: []string{"/srb/statea"}})
	if err := s.CopyIn(t.Context(), src, "/work/sub/mission"); err != nil {
		t.Fatal(err)
	}
	if r := sh(t, s, "/work/sub/mission/run.sh && cat /work/sub/mission/link"); string(r.Stdout) != "ran\ndata" {
		t.Errorf("copied script and link: %q %q", r.Stdout, r.Stderr)
	}
	if r := sh(t, s, "echo x > /srb/statea/new"); r.ExitCode == 0 || !strings.Contains(string(r.Stderr), "Read-only") {
		t.Errorf("writing under a ReadOnly path: exit %d, %q", r.ExitCode, r.Stderr)
	}
	if r := sh(t, s, "echo made > /work/sub/mission/made"); r.ExitCode != 0 {
		t.Fatalf("writing the copy: %q", r.Stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := s.CopyOut(t.Context(), "/srb/statea", out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree(t, src), tree(t, out)); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if err := s.Kill(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(t.Context()); err != nil {
		t.Errorf("a second kill: %v", err)
	}
	file := filepath.Join(t.TempDir(), "made.txt")
	if err := s.CopyOut(t.Context(), "/work/sub/mission/made", file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "made\n" {
		t.Errorf("file copied out of a killed container: %q", b)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Client.ContainerInspect(t.Context(), s.ID); err == nil {
		t.Error("the container is still there after Close")
	}
}

package proc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// execsOf runs a shell script traced (as the nobody user when root, as
// the build module runs the submission) and returns its exit.
func execsOf(t *testing.T, script string) Exit {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.c"), []byte("int main(){}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Spec{Argv: []string{"/bin/sh", "-c", script}, Dir: dir, TraceExecs: true}
	if os.Geteuid() == 0 {
		s.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	var out bytes.Buffer
	s.Stdout, s.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if e.Err != nil {
		t.Fatalf("traced run: %v (output %q)", e.Err, out.String())
	}
	return e
}

func realPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(name)
	if err != nil {
		t.Skipf("%s: %v", name, err)
	}
	return p
}

// TestTraceExecsSeesEveryProgram: a program run by absolute path, through
// a link to it named as another tool, from a subshell, a background job and a
// double fork is recorded by what the kernel executed, with the files its
// arguments name; a process's own argv[0] does not change the record.
func TestTraceExecsSeesEveryProgram(t *testing.T) {
	cat := realPath(t, "/bin/cat")
	e := execsOf(t, `ln -s /bin/cat ./decoy && ./decoy in.c >/dev/null; ln -s /bin/cat ./go && PATH=.:$PATH go in.c >/dev/null; ( /bin/cat in.c & ) ; wait; sleep 0.2; exit 3`)
	if e.Code != 3 {
		t.Fatalf("exit %d, want 3", e.Code)
	}
	var cats []Exec
	for _, x := range e.Execs {
		if x.Exe == cat {
			cats = append(cats, x)
		}
	}
	if len(cats) != 3 {
		t.Fatalf("%d execs of %s, want 3: %+v", len(cats), cat, e.Execs)
	}
	argv0 := []string{cats[0].Argv[0], cats[1].Argv[0], cats[2].Argv[0]}
	if !slices.Contains(argv0, "go") || !slices.Contains(argv0, "./decoy") {
		t.Errorf("argv[0]s %q: the record must keep what the process was told, beside what ran", argv0)
	}
	for _, c := range cats {
		if len(c.Files) != 1 || !strings.HasSuffix(c.Files[0], "/in.c") || !filepath.IsAbs(c.Files[0]) {
			t.Errorf("exec %+v: files %q, want the absolute path of in.c", c, c.Files)
		}
		if c.Ino == 0 {
			t.Errorf("exec %+v has no inode", c)
		}
	}
	if sh := realPath(t, "/bin/sh"); e.Execs[0].Exe != sh {
		t.Errorf("first exec %q, want the shell %q", e.Execs[0].Exe, sh)
	}
}

// TestTraceExecsKeepsSignalsAndContainment: a traced command's signals
// reach it (a trap runs), a setsid'd sleeper is still ended with the
// command, and Terminate still works.
func TestTraceExecsKeepsSignalsAndContainment(t *testing.T) {
	m := marker(t)
	var out bytes.Buffer
	s := Spec{Argv: []string{"/bin/sh", "-c", `trap 'echo got-term; exit 7' TERM; setsid sleep 300 ` + m + ` & while :; do sleep 0.05; done`},
		TraceExecs: true, Stdout: &out}
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	p.Terminate(5 * time.Second)
	e := p.Wait()
	if e.Err != nil {
		t.Fatal(e.Err)
	}
	if e.Code != 7 || !strings.Contains(out.String(), "got-term") {
		t.Errorf("exit %d, output %q: SIGTERM did not reach the traced shell's trap", e.Code, out.String())
	}
	if left := survivors(m); len(left) > 0 {
		t.Errorf("processes %v outlived the traced command", left)
	}
	if len(e.Execs) < 2 {
		t.Errorf("execs %+v: want the shell and its sleepers", e.Execs)
	}
}

// TestTraceExecsUnderSubreaper: where no namespace can be made (a stage
// container) the tracer still records every exec.
func TestTraceExecsUnderSubreaper(t *testing.T) {
	forceSubreaper(t)
	e := execsOf(t, `/bin/cat in.c >/dev/null; true`)
	if e.Containment != Subreaper {
		t.Fatalf("containment %s", e.Containment)
	}
	cat := realPath(t, "/bin/cat")
	if !slices.ContainsFunc(e.Execs, func(x Exec) bool { return x.Exe == cat }) {
		t.Errorf("no exec of %s in %+v", cat, e.Execs)
	}
}

// TestUntracedHasNoExecs: without TraceExecs nothing is recorded.
func TestUntracedHasNoExecs(t *testing.T) {
	e, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}})
	if err != nil || e.Err != nil || e.Execs != nil {
		t.Fatalf("%v %v %+v", err, e.Err, e.Execs)
	}
}

// TestRunsAs: a contained command's process running as another user is
// seen from the init down while it runs, and not once the command ended.
func TestRunsAs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as another user")
	}
	p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "sleep 30"}, Credential: &syscall.Credential{Uid: 65534, Gid: 65534}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !p.RunsAs(65534) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !p.RunsAs(65534) {
		t.Error("RunsAs(65534) is false while the command runs as 65534")
	}
	if p.RunsAs(4242) {
		t.Error("RunsAs(4242) is true")
	}
	p.Kill()
	if p.RunsAs(65534) {
		t.Error("RunsAs is true after the command ended")
	}
}

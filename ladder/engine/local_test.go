package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A Local session as root: its own unused uid (not root, not another
// session's), a root folder only root and that uid's group can enter, no
// variable of the grader's environment, copies that are root's unless
// owned, no command as root, and no copy through a link its user planted.
func TestLocalIsolation(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the Local backend draws users only as root")
	}
	t.Setenv("SRB_TEST_SECRET", "grader-only")
	l := &Local{}
	a, b := startSession(t, l, Spec{}), startSession(t, l, Spec{})
	uid := func(s *Session) int {
		r := sh(t, s, `id -u`)
		n, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
		if err != nil {
			t.Fatalf("id -u: %q %q", r.Stdout, r.Stderr)
		}
		return n
	}
	ua, ub := uid(a), uid(b)
	if ua < 1_000_000_000 || ub < 1_000_000_000 || ua == ub {
		t.Errorf("session users %d and %d: want two distinct drawn uids", ua, ub)
	}
	st, err := os.Stat(a.Path("/"))
	if err != nil {
		t.Fatal(err)
	}
	if sys := st.Sys().(*syscall.Stat_t); st.Mode().Perm() != 0o710 || sys.Uid != 0 || int(sys.Gid) != ua {
		t.Errorf("root folder %v %d:%d, want 0710 root:%d", st.Mode(), sys.Uid, sys.Gid, ua)
	}
	if r := sh(t, a, `ls "$1"`, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", b.Path("/")) }); r.ExitCode == 0 {
		t.Errorf("one session listed another's root folder: %q", r.Stdout)
	}
	if r := sh(t, a, `echo "[$SRB_TEST_SECRET]"`); string(r.Stdout) != "[]\n" {
		t.Errorf("the grader's environment reached the session: %q", r.Stdout)
	}
	if _, err := a.Exec(t.Context(), ExecSpec{Argv: []string{"true"}, User: "0"}); err == nil {
		t.Error("a command ran as root")
	}
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), []byte("x"), 0o666)
	os.Chmod(src, 0o777)
	ro := startSession(t, l, Spec{Copies: []Copy{{HostPath: src, ContainerPath: "/srb/ro"}}, ReadOnly: []string{"/srb/ro"}})
	if r := sh(t, ro, `echo y >"$1/f" || echo y >"$1/g" || exit 0; exit 1`, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", ro.Path("/srb/ro")) }); r.ExitCode != 0 {
		t.Errorf("the session's user wrote under a ReadOnly path copied 0777/0666")
	}
	if err := a.CopyInOwned(t.Context(), t.TempDir(), "/srb/home", 1, 1); err != nil {
		t.Fatal(err)
	}
	if r := sh(t, a, `ln -s /etc "$1/etc" && echo linked`, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", a.Path("/srb/home")) }); string(r.Stdout) != "linked\n" {
		t.Fatalf("the session's user cannot write its HOME: %q", r.Stderr)
	}
	if err := a.CopyIn(t.Context(), src, "/srb/home/etc/srb-planted"); err == nil {
		t.Error("a copy in went through a link the session's user planted")
	}
	if _, err := os.Stat("/etc/srb-planted"); err == nil {
		os.RemoveAll("/etc/srb-planted")
		t.Error("a copy in wrote /etc/srb-planted")
	}
	if err := a.CopyOut(t.Context(), "/srb/home/etc/passwd", filepath.Join(t.TempDir(), "p")); err == nil {
		t.Error("a copy out went through a link the session's user planted")
	}
}

// As root, a TMPDIR under a folder closed to other users (a test's, say)
// does not strand the session's user outside its root folder: the root
// is made in /tmp instead; a Base so closed is refused.
func TestLocalClosedTempDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the Local backend draws users only as root")
	}
	closed := t.TempDir()
	os.Chmod(closed, 0o700)
	tmp := filepath.Join(closed, "tmp")
	os.Mkdir(tmp, 0o777)
	t.Setenv("TMPDIR", tmp)
	s := startSession(t, &Local{}, Spec{})
	if !strings.HasPrefix(s.Path("/"), "/tmp/srb-host-") {
		t.Errorf("root folder %s, want one in /tmp", s.Path("/"))
	}
	if r := sh(t, s, `pwd`); r.ExitCode != 0 {
		t.Errorf("the session's user cannot enter its root folder: %q", r.Stderr)
	}
	if _, err := (&Local{Base: tmp}).Start(t.Context(), Spec{}); err == nil || !strings.Contains(err.Error(), "closed to other users") {
		t.Errorf("a closed Base: %v", err)
	}
}

// Local's Runner verbs: Run is one command in a session of its own (the
// image's files in place, the session gone after); Image knows the
// images it was given; Load and the Spec fields with no meaning here are
// refused.
func TestLocalRunner(t *testing.T) {
	files := t.TempDir()
	os.WriteFile(filepath.Join(files, "hello.sh"), []byte("echo hello from the image\n"), 0o600)
	// Sessions in a folder of the test's own: other tests (and other
	// packages' tests, run at the same time) make sessions in the system's
	// temporary folder.
	base := t.TempDir()
	for _, d := range []string{base, filepath.Dir(base)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	l := &Local{Base: base, Images: map[string][]Copy{"srb/x:host": {{HostPath: files, ContainerPath: "/tests/x"}}}}
	before, _ := filepath.Glob(filepath.Join(base, "srb-host-*"))
	r, err := l.Run(t.Context(), Spec{Image: "srb/x:host", Cmd: []string{"sh", "-c", `cd /tests/x 2>/dev/null && echo container-path; exit 5`}})
	if err != nil || r.ExitCode != 5 || string(r.Stdout) != "" {
		t.Errorf("run: %+v %v (a process on this machine does not see container paths unmapped)", r, err)
	}
	s := startSession(t, l, Spec{Image: "srb/x:host"})
	r, err = s.Exec(t.Context(), ExecSpec{Argv: []string{"sh", s.Path("/tests/x/hello.sh")}})
	if err != nil || string(r.Stdout) != "hello from the image\n" {
		t.Errorf("the image's file, closed to others on the grader's side, is readable in the session: %+v %v", r, err)
	}
	s.Close(t.Context())
	after, _ := filepath.Glob(filepath.Join(base, "srb-host-*"))
	if len(after) > len(before) {
		t.Errorf("root folders left: %v, were %v", after, before)
	}
	if in, err := l.Image(t.Context(), "srb/x:host"); err != nil || in.ID != "srb/x:host" {
		t.Errorf("image: %+v %v", in, err)
	}
	if _, err := l.Image(t.Context(), "srb/y:host"); !errors.Is(err, ErrNoImage) {
		t.Errorf("an unknown image: %v", err)
	}
	if _, err := l.Start(t.Context(), Spec{Image: "srb/y:host"}); !errors.Is(err, ErrNoImage) {
		t.Errorf("start of an unknown image: %v", err)
	}
	if _, err := l.Load(t.Context(), strings.NewReader("")); err == nil {
		t.Error("Load loaded something")
	}
	if _, err := l.Start(t.Context(), Spec{ExtraHosts: []string{"gw:127.0.0.1"}}); err == nil {
		t.Error("a Spec with extra hosts started")
	}
	if _, err := l.Start(t.Context(), Spec{User: "root"}); err == nil {
		t.Error("a Spec running as root started")
	}
}

// With Root set every session's root folder is that path, made at Start
// and removed at Close, so a path Session.Path gave stays valid for the
// next session; a second session while one holds it is refused.
func TestLocalFixedRoot(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "srb-test-root-") // t.TempDir's folder is closed to others
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o711)
	l := &Local{Root: filepath.Join(dir, "root")}
	for i := range 2 {
		s, err := l.Start(t.Context(), Spec{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Path("/srb/x") != filepath.Join(dir, "root", "srb", "x") {
			t.Errorf("session %d: path %s", i, s.Path("/srb/x"))
		}
		if _, err := l.Start(t.Context(), Spec{}); err == nil {
			t.Errorf("session %d: a second session shared the root folder", i)
		}
		if err := s.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(l.Root); !os.IsNotExist(err) {
			t.Errorf("session %d: the root folder outlived Close: %v", i, err)
		}
	}
}

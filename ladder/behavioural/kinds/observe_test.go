package kinds

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// within fails the test when f takes longer than d (a read that blocks on
// a FIFO or reads /dev/zero for ever would).
func finishesWithin(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Errorf("still reading after %v", d)
		<-done
	}
}

// Every file the grader reads back from a folder the submission wrote is
// observed without following a link, without blocking on a FIFO and
// without reading past ObservedBytesLimit: each such file is an
// observation that differs from any digest (the check fails, counted),
// never a hang.
func TestFileDigestObservesWithoutFollowing(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(reg, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil { // a terabyte of nothing
		t.Fatal(err)
	}
	f.Close()
	want := map[string]string{
		reg:                           "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
		fifo:                          "not a regular file: a named pipe",
		zero:                          "symlink -> /dev/zero",
		sparse:                        "unreadable: more than 16777216 bytes",
		dir:                           "not a regular file: a folder",
		filepath.Join(dir, "missing"): "missing",
	}
	for p, w := range want {
		finishesWithin(t, 5*time.Second, func() {
			if got := fileDigest(p); got != w {
				t.Errorf("fileDigest(%s) = %q, want %q", filepath.Base(p), got, w)
			}
		})
	}
	// A folder on the way that is a link is not followed either.
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	if got := fileDigestUnder(dir, filepath.Join(dir, "etc", "passwd")); got != "not a regular file: a symbolic link on the way (etc)" {
		t.Errorf("through a linked folder: %q", got)
	}
	if got := fileDigestUnder(dir, reg); got != want[reg] {
		t.Errorf("fileDigestUnder(out.txt) = %q", got)
	}
	// The tool log of a build: the same rules.
	finishesWithin(t, 5*time.Second, func() {
		for _, p := range []string{fifo, zero, sparse} {
			if _, err := ReadInvocations(p); err == nil {
				t.Errorf("ReadInvocations(%s) read it", filepath.Base(p))
			}
		}
	})
}

// A library is read through links that stay in the build's tree
// (libfoo.so -> libfoo.so.1), never through one that leaves it.
func TestResolveWithin(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "libfoo.so.1.2"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"libfoo.so.1": "libfoo.so.1.2", "libfoo.so": "libfoo.so.1",
		"abs.so": filepath.Join(lib, "libfoo.so.1.2"), "out.so": "../../../../../dev/zero",
		"zero.so": "/dev/zero", "loop.so": "loop.so",
	} {
		if err := os.Symlink(target, filepath.Join(lib, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"lib/libfoo.so", "lib/abs.so", "lib/libfoo.so.1.2"} {
		p, err := resolveWithin(root, rel)
		if err != nil || p != filepath.Join(lib, "libfoo.so.1.2") {
			t.Errorf("resolveWithin(%s) = %q, %v", rel, p, err)
		}
	}
	for _, rel := range []string{"lib/out.so", "lib/zero.so", "lib/loop.so", "../etc/passwd"} {
		if p, err := resolveWithin(root, rel); err == nil {
			t.Errorf("resolveWithin(%s) = %q, want a refusal", rel, p)
		}
	}
	if _, err := librarySymbols(root, "lib/zero.so"); err == nil || !strings.Contains(err.Error(), "leaves") && !strings.Contains(err.Error(), "out of") {
		t.Errorf("librarySymbols through a link to /dev/zero: %v", err)
	}
}

// A case's output past ObservedBytesLimit is kept only up to the cap (the
// rest is read and dropped, so the case ends on its own), and observed as
// its size and digest.
func TestRunProcCapsOutput(t *testing.T) {
	runProc := (&module{plan: &behavioural.Plan{}}).runProc
	n := ObservedBytesLimit + 1000
	r := runProc([]string{"sh", "-c", fmt.Sprintf("head -c %d /dev/zero; echo err >&2", n)}, t.TempDir(),
		[]string{"PATH=/usr/bin:/bin"}, nil, 60*time.Second)
	if r.Err != nil || r.Exit != 0 || r.TimedOut {
		t.Fatalf("result: exit %d, err %v, timed out %v", r.Exit, r.Err, r.TimedOut)
	}
	if len(r.Stdout) != ObservedBytesLimit {
		t.Errorf("kept %d bytes of stdout, want %d", len(r.Stdout), ObservedBytesLimit)
	}
	if !strings.HasPrefix(r.StdoutOver, fmt.Sprintf("more than 16777216 bytes (%d bytes, sha256:", n)) {
		t.Errorf("StdoutOver = %q", r.StdoutOver)
	}
	if r.StderrOver != "" || string(r.Stderr) != "err\n" {
		t.Errorf("stderr %q, over %q", r.Stderr, r.StderrOver)
	}
	// The same output is the same observation; one byte more is not.
	r2 := runProc([]string{"head", "-c", fmt.Sprint(n + 1), "/dev/zero"}, t.TempDir(), []string{"PATH=/usr/bin:/bin"}, nil, 60*time.Second)
	if r2.StdoutOver == "" || r2.StdoutOver == r.StdoutOver {
		t.Errorf("StdoutOver of a longer output = %q", r2.StdoutOver)
	}
}

// With the --host sandbox (a mount namespace), each process of the
// submission has its own network namespace with only its loopback (up),
// and RLIMIT_NPROC is SubmissionProcessLimit.
func TestRunProcJailedNetworkAndProcesses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Net {
		t.Skipf("no network namespace here: %s", j.NetRefused)
	}
	if j.NProc != behavioural.SubmissionProcessLimit || j.Network() != "own namespace, loopback only" {
		t.Errorf("jail: nproc %d, network %q", j.NProc, j.Network())
	}
	m := &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}}
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	script := `tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d ' '; grep 'Max processes' /proc/self/limits`
	r := m.runProc([]string{"sh", "-c", script}, dir, m.baseEnv(), nil, 10*time.Second)
	if r.Err != nil || r.Exit != 0 {
		t.Fatalf("result %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if len(lines) != 2 || lines[0] != "lo" || strings.Join(strings.Fields(lines[1]), " ") != "Max processes 4096 4096 processes" {
		t.Errorf("the case saw:\n%s", r.Stdout)
	}
	// Loopback is up (127.0.0.1 routed, as after "ip link set lo up").
	r = m.runProc([]string{"grep", "-c", "127.0.0.1", "/proc/self/net/fib_trie"}, dir, m.baseEnv(), nil, 10*time.Second)
	if r.Err != nil || r.Exit != 0 || strings.TrimSpace(string(r.Stdout)) == "0" {
		t.Errorf("loopback down: %+v", r)
	}
}

// A build that replaces its tool log (here the place the recording
// wrappers used to log to, with a link to /dev/zero) changes nothing: the
// log is the grader's record of what the kernel executed, written after
// the build, so the build passes and cat-ran is judged on what ran.
func TestBuildToolLogReplaced(t *testing.T) {
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"in": "x\n"})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	script := `cat in > out; if [ -f tamper ]; then rm -f ../tools.jsonl; ln -s /dev/zero ../tools.jsonl; fi`
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {
			Original: [][]string{{"/bin/sh", "-c", script}}, Outputs: []string{"out"}, Watch: []string{"cat"},
		}},
		StateB: [][]string{{"/bin/sh", "-c", script}},
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "prov", Kind: "provenance", About: "p", Weight: 1, Timeout: time.Minute, Params: raw(ProvenanceParams{
				Rules: []Rule{{ID: "cat-ran", Tools: []string{"cat"}, Expect: "ran"}},
			})},
		},
	}
	sub := filepath.Join(root, "b")
	tree(t, sub, map[string]string{"in": "x\n", "tamper": ""})
	for jailed, failing := range frozenThenChecked(t, root, taskDir, original, sub, d) {
		if len(failing) > 0 {
			t.Errorf("jailed %v: failing:\n%s", jailed, strings.Join(failing, "\n"))
		}
	}
}

// A build cannot hide a watched tool from the tool log: it runs cat by
// absolute path, through a link named otherwise and behind a wrapper of
// its own first on PATH, and appends a forged line to where a log might
// be. The log is the tracer's record, so "never cat" fails (and the
// forged line is nowhere), jailed or not.
func TestBuildToolsTraced(t *testing.T) {
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"in": "x\n"})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	honest := `cp in out`
	attack := `mkdir -p w && printf '#!/bin/sh\nexec cp "$1" "$2"\n' > w/cat && chmod +x w/cat && ln -s /bin/cat ./copy && ` +
		`PATH=$PWD/w:$PATH; export PATH; /bin/cat in > out && ./copy in > out2; ` +
		`echo '{"tool":"cp","argv":["forged"],"dir":".","inputs":[]}' >> ../tools.jsonl; true`
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {
			Original: [][]string{{"/bin/sh", "-c", honest}}, Outputs: []string{"out"}, Watch: []string{"cat", "cp"},
		}},
		StateB: [][]string{{"/bin/sh", "-c", `if [ -f attack ]; then ` + attack + `; else ` + honest + `; fi`}},
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "prov", Kind: "provenance", About: "p", Weight: 1, Timeout: time.Minute, Params: raw(ProvenanceParams{
				Rules: []Rule{{ID: "no-cat", Tools: []string{"cat"}, Expect: "never"}, {ID: "cp-ran", Tools: []string{"cp"}, Expect: "ran"}},
			})},
		},
	}
	sub := filepath.Join(root, "b")
	tree(t, sub, map[string]string{"in": "x\n", "attack": ""})
	for jailed, failing := range frozenThenChecked(t, root, taskDir, original, sub, d) {
		joined := strings.Join(failing, "\n")
		if !strings.Contains(joined, "prov/no-cat") {
			t.Errorf("jailed %v: cat by absolute path and through a link went unseen; failing:\n%s", jailed, joined)
		}
		if !strings.Contains(joined, "prov/cp-ran") {
			t.Errorf("jailed %v: a forged cp line counted; failing:\n%s", jailed, joined)
		}
		if strings.Contains(joined, "build/") {
			t.Errorf("jailed %v: the build failed; failing:\n%s", jailed, joined)
		}
	}
}

// An installed tree past its bounds is refused at once, never walked or
// digested to the end: files past ObservedBytesLimit are not read, but
// count towards TreeBytesLimit.
func TestObserveTreeBounded(t *testing.T) {
	root := t.TempDir()
	for i, size := range []int64{600 << 20, 600 << 20, 3} {
		f, err := os.Create(filepath.Join(root, fmt.Sprintf("f%02d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil { // sparse
			t.Fatal(err)
		}
		f.Close()
	}
	finishesWithin(t, 10*time.Second, func() {
		if _, err := ObserveTree(root, nil); err != errTreeTooLarge {
			t.Errorf("ObserveTree of 1.2 GiB: %v", err)
		}
	})
	// Within the bounds: every entry observed.
	tree, err := ObserveTree(root, []string{"f0[02]"})
	if err != nil || len(tree) != 2 || tree["f02"].Type != "file" || !strings.HasPrefix(tree["f02"].Digest, "sha256:") ||
		tree["f00"].Digest != "unreadable: more than 16777216 bytes" {
		t.Errorf("ObserveTree(f0[02]) = %v, %v", tree, err)
	}
}

// A build that leaves a tree past BuildTreeBytesLimit (a sparse 9 GiB
// file) is that build's failure with the sandbox (the ledger copy is
// refused at once), so the case goes unobserved; without one the tree
// stays where it was built and each module restores only the declared
// outputs, so the case passes. Nothing copies 9 GiB, and no harness fault.
func TestBuildTreePastBounds(t *testing.T) {
	if _, err := exec.LookPath("truncate"); err != nil {
		t.Skip("no truncate")
	}
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"in": "x\n"})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	script := `cat in > out; if [ -f sparse ]; then truncate -s 9G big; fi`
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {
			Original: [][]string{{"/bin/sh", "-c", script}}, Outputs: []string{"out"},
		}},
		StateB: [][]string{{"/bin/sh", "-c", script}},
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "out", Kind: "command", About: "o", Weight: 1, Timeout: time.Minute, Params: raw(map[string]any{
				"cases": []any{map[string]any{"id": "out", "argv": []string{"cat", "${BUILD}/out"}}},
			})},
		},
	}
	sub := filepath.Join(root, "b")
	tree(t, sub, map[string]string{"in": "x\n", "sparse": ""})
	for jailed, failing := range frozenThenChecked(t, root, taskDir, original, sub, d) {
		joined := strings.Join(failing, "\n")
		if !jailed {
			if joined != "" {
				t.Errorf("without a sandbox: failing:\n%s", joined)
			}
			continue
		}
		if !strings.Contains(joined, "out/out/stdout: not observed") || !strings.Contains(joined, "build/default/builds") ||
			!strings.Contains(joined, "could not be kept: more bytes of files than the copy allows") {
			t.Errorf("jailed: failing:\n%s", joined)
		}
	}
}

// frozenThenChecked freezes d's truth from State A (original) on the host,
// then checks the submission tree sub against it without the sandbox and,
// as root, in it; it returns each run's failing checks by whether it was
// jailed. Each run must finish within two minutes with status ok and no
// harness fault: whatever the submission left is its own failure.
func frozenThenChecked(t *testing.T, root, taskDir, original, sub string, d *behavioural.Declaration) map[bool][]string {
	t.Helper()
	helper := []string{os.Args[0]}
	fz := &behavioural.Freezer{Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl: d, Helper: helper, Provenance: behavioural.Provenance{Where: "host"}}
	if _, err := fz.Freeze(context.Background()); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	out := map[bool][]string{}
	for _, jailed := range []bool{false, true} {
		if jailed && os.Geteuid() != 0 {
			continue
		}
		dd := *d
		if jailed {
			j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), taskDir, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
			if err == nil {
				err = j.InstallHelper(helper)
			}
			if err != nil {
				t.Fatal(err)
			}
			dd.Jail = j
		}
		work := filepath.Join(root, fmt.Sprintf("check-%v", jailed))
		s, err := dd.Suite(behavioural.ModeCheck, work, filepath.Join(taskDir, behavioural.TruthDir), helper)
		if err != nil {
			t.Fatal(err)
		}
		var st *result.Stage
		finishesWithin(t, 2*time.Minute, func() {
			st, err = (&behavioural.Runner{Repo: sub, Original: original, Work: work, Jail: dd.Jail}).Run(context.Background(), s)
		})
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != "ok" || st.Metadata["harness_fault"] != nil {
			t.Errorf("jailed %v: status %s, metadata %v", jailed, st.Status, st.Metadata)
		}
		failing, _ := checksByVerdict(st)
		t.Logf("jailed %v: failing:\n%s", jailed, strings.Join(failing, "\n"))
		out[jailed] = failing
	}
	return out
}

package verification

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// snapshotContainer starts a Container on this machine over two small
// trees whose runner (a shell script, the task's candidate command) runs
// the candidate and, when the tree holds a file named "big", first writes
// big's size in bytes into SRB_WORK, as a build cache would. Disk is the
// task's limits.disk: the bound of a side's snapshot.
func snapshotContainer(t *testing.T, origBig, subBig string, disk int64) *Container {
	t.Helper()
	assets := t.TempDir()
	runner := `#!/bin/sh
if [ -f "$SRB_TARGET/big" ]; then head -c "$(cat "$SRB_TARGET/big")" /dev/zero > "$SRB_WORK/cache"; fi
exec /bin/sh "$SRB_CANDIDATE"
`
	if err := os.WriteFile(filepath.Join(assets, "run.sh"), []byte(runner), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := func(big string) string {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "main.txt"), []byte("tree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if big != "" {
			if err := os.WriteFile(filepath.Join(d, "big"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	c, err := NewContainer(t.Context(), ContainerConfig{Engine: hostEngine(assets), Image: hostImage, Paths: []string{assetsDir},
		Original: tree(origBig), Submission: tree(subBig), Command: []string{assetsDir + "/run.sh"},
		Timeout: time.Minute, Work: t.TempDir(), Disk: disk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A submission whose warm-up leaves more than a side's snapshot may hold
// (its build filled SRB_WORK) cannot make the grader copy it all, and
// cannot turn stage 3 into a fault either: every run on its side fails,
// with the reason, so a candidate that passes on State A finds it broken.
// State A's side still runs.
func TestSnapshotOverBoundFailsTheSubmission(t *testing.T) {
	t.Parallel()
	c := snapshotContainer(t, "", "3000000", 1<<20)
	cand := &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}
	orig := c.Execute(t.Context(), cand, RoleOriginal)
	if !orig.Passed || orig.Harness != "" {
		t.Fatalf("State A's run: %+v", orig)
	}
	for range 2 { // the side stays unfit until the next Reset
		sub := c.Execute(t.Context(), cand, RoleSubmission)
		if sub.Passed || sub.Harness != "" || sub.Fault || sub.ExitCode != -1 ||
			!strings.Contains(sub.Stderr, "the submission's tree cannot be tested") || !strings.Contains(sub.Stderr, "more than 1048576 bytes of files together") {
			t.Fatalf("the submission's run: %+v", sub)
		}
	}
	// Nothing of the side's oversized snapshot stays on the grader's side.
	if _, err := os.Stat(c.snap(RoleSubmission)); !os.IsNotExist(err) {
		t.Errorf("the submission's snapshot folder is still there: %v", err)
	}
}

// Under the bound, the side's cache is kept and every run starts from it.
func TestSnapshotUnderBoundIsKept(t *testing.T) {
	t.Parallel()
	c := snapshotContainer(t, "", "4096", 1<<20)
	cand := &Candidate{Name: "size", Filename: "size.sh", Code: `test "$(wc -c < "$SRB_WORK/cache")" -eq 4096` + "\n"}
	if run := c.Execute(t.Context(), cand, RoleSubmission); !run.Passed {
		t.Fatalf("the submission's run: %+v", run)
	}
}

// State A past the bound is the grader's side, never the submission's
// doing: the run is srb's fault (an invalid verdict), saying why.
func TestSnapshotOverBoundOnStateAIsAFault(t *testing.T) {
	t.Parallel()
	c := snapshotContainer(t, "3000000", "", 1<<20)
	run := c.Execute(t.Context(), &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}, RoleOriginal)
	if run.Passed || !strings.Contains(run.Harness, "cannot keep the tree's snapshot") || !strings.Contains(run.Harness, "more than 1048576 bytes of files together") {
		t.Fatalf("State A's run: %+v", run)
	}
}

// buildContainer starts a Container on this machine over two small trees
// whose runner runs the tree's build.sh, when it has one, in the tree as
// the candidate user (a submission's build, which the warm-up runs) and
// then the candidate. State A has no build.
func buildContainer(t *testing.T, subBuild string, disk int64, mod ...func(*ContainerConfig)) *Container {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	assets := t.TempDir()
	runner := `#!/bin/sh
if [ -f "$SRB_TARGET/build.sh" ]; then ( cd "$SRB_TARGET" && /bin/sh ./build.sh ) >/dev/null 2>&1; fi
exec /bin/sh "$SRB_CANDIDATE"
`
	if err := os.WriteFile(filepath.Join(assets, "run.sh"), []byte(runner), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := func(build string) string {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "main.txt"), []byte("tree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if build != "" {
			if err := os.WriteFile(filepath.Join(d, "build.sh"), []byte(build), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	cfg := ContainerConfig{Engine: hostEngine(assets), Image: hostImage, Paths: []string{assetsDir},
		Original: tree(""), Submission: tree(subBuild), Command: []string{assetsDir + "/run.sh"},
		Timeout: time.Minute, Work: t.TempDir(), Disk: disk}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := NewContainer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Whatever a submission's build leaves in its tree or SRB_WORK, its side's
// snapshot is never srb's fault: a run on it passes or fails, and is never
// a harness error (an invalid verdict the submission could choose).
func TestSnapshotOfAnyBuildIsNoFault(t *testing.T) {
	// deep makes a chain of n folders named by width letters under dir,
	// one relative step at a time, its path past PATH_MAX (4096).
	deep := func(dir string, width, n int) string {
		return fmt.Sprintf(`cd "%s" && perl -e 'for (1..%d) { mkdir "n" x %d or die; chdir "n" x %d or die } open F, ">f" or die'`, dir, n, width, width)
	}
	for name, build := range map[string]string{
		// A chain of folders whose path passes PATH_MAX (4096) under the
		// session's root: each step is relative, so the build makes it.
		"deep-path": deep("$SRB_WORK", 255, 25),
		"deep-tree": deep(".", 1, 2500),
		"non-utf8":  `printf 'x' > "$(printf 'bad\377\376name')"; mkdir "$(printf 'dir\377')"; ln -s "$(printf '\377')" "$(printf 'lnk\377')"`,
		"long-link": `ln -s "$(printf '%04000d' 0)" longlink`,
		"fifo":      `mkfifo fifo; mkfifo "$SRB_WORK/fifo"`,
		"socket":    `perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Type=>SOCK_STREAM, Local=>"sock", Listen=>1)'`,
		"closed":    `mkdir -p a/b && echo x > a/b/f && chmod 000 a/b/f a/b a; chmod 000 "$SRB_WORK"`,
		"tree-gone": `cd / && rm -rf "$SRB_WORK"/* "$SRB_TARGET"/* 2>/dev/null; true`,
		"writer":    `(setsid sh -c 'while :; do echo x >> "$SRB_WORK/log"; head -c 100000 /dev/zero > "$SRB_WORK/grow"; done' &) ; sleep 0.2`,
		"link-out":  `ln -s / root; ln -s /etc/shadow shadow; ln "$SRB_TARGET/main.txt" "$SRB_WORK/hard"`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := buildContainer(t, build, 1<<20)
			cand := &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}
			if orig := c.Execute(t.Context(), cand, RoleOriginal); !orig.Passed || orig.Harness != "" {
				t.Fatalf("State A's run: %+v", orig)
			}
			for range 2 {
				sub := c.Execute(t.Context(), cand, RoleSubmission)
				if sub.Harness != "" {
					t.Fatalf("the submission's run is a harness error: %.600s", sub.Harness)
				}
				if strings.HasPrefix(name, "deep-") && (sub.Passed || sub.ExitCode != -1 || !strings.Contains(sub.Stderr, "holds a path longer than 2048 bytes")) {
					t.Fatalf("the submission's run on a tree past the snapshot's path bound: %+v", sub)
				}
				t.Logf("the submission's run: passed=%v exit=%d stderr=%.300q", sub.Passed, sub.ExitCode, sub.Stderr)
			}
		})
	}
}

// smallDisk mounts a tmpfs of size bytes for the test (root only) and
// puts the sessions and the grader's work folder on it: a machine whose
// disk a sandbox's user can fill (this machine's backend bounds no
// sandbox's disk).
func smallDisk(t *testing.T, size int64) func(*ContainerConfig) {
	t.Helper()
	mnt, err := os.MkdirTemp("/tmp", "srb-small-disk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(mnt) })
	if err := os.Chmod(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0755", size), "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	return func(cfg *ContainerConfig) {
		cfg.Engine.(*engine.Local).Base = mnt
		cfg.Work = mnt
	}
}

// A submission that fills the machine's disk, in its build or in a run
// (HOME, TMPDIR, SRB_WORK: nothing bounds them on this machine), makes
// neither its own side's snapshot nor State A's next run srb's fault:
// what a side's run leaves beyond its snapshot is removed when the run
// ends, before the other side runs.
func TestFilledDiskIsNoFault(t *testing.T) {
	fill := `cat /dev/zero > "$HOME/fill"; cat /dev/zero > "$TMPDIR/fill"; cat /dev/zero > "$SRB_WORK/fill"; cat /dev/zero > "$SRB_TARGET/fill"; `
	for name, tc := range map[string]struct{ build, code string }{
		"build": {build: `[ -f "$SRB_WORK/built" ] || { echo > "$SRB_WORK/built"; ` + fill + `}; cat /dev/zero > "$HOME/fill"; true`},
		"run":   {code: fill + "exit 1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := buildContainer(t, tc.build, 0, smallDisk(t, 48<<20))
			// State A's candidate is larger than the page the
			// submission's candidate file frees when its run ends.
			ok := &Candidate{Name: "ok", Filename: "ok.sh", Code: "# " + strings.Repeat("x", 64<<10) + "\nexit 0\n"}
			cand := ok
			if tc.code != "" {
				cand = &Candidate{Name: "fill", Filename: "fill.sh", Code: tc.code + "\n"}
			}
			for i := range 3 {
				if orig := c.Execute(t.Context(), ok, RoleOriginal); orig.Harness != "" {
					t.Fatalf("State A's run %d is a harness error: %.600s", i, orig.Harness)
				}
				sub := c.Execute(t.Context(), cand, RoleSubmission)
				t.Logf("sub %d: exit %d stderr %.300q", i, sub.ExitCode, sub.Stderr)
				if sub.Harness != "" {
					t.Fatalf("the submission's run %d is a harness error: %.600s", i, sub.Harness)
				}
			}
		})
	}
}

// slowStarter starts sessions through inner whose copies into a
// working tree ([ContainerRoot]/trees/) take delay longer: a tree so large
// that putting it back takes long.
type slowStarter struct {
	inner Starter
	delay time.Duration
}

func (s slowStarter) Start(ctx context.Context, spec engine.Spec) (*engine.Session, error) {
	in, err := s.inner.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return engine.NewSession(in.ID, in.Image, &slowCopies{recSession: &recSession{spec: spec, s: in}, delay: s.delay}), nil
}

type slowCopies struct {
	*recSession
	delay time.Duration
}

func (s *slowCopies) CopyIn(ctx context.Context, cp engine.Copy) error {
	if strings.HasPrefix(cp.ContainerPath, ContainerRoot+"/trees/") {
		time.Sleep(s.delay)
	}
	return s.recSession.CopyIn(ctx, cp)
}

// A submission whose tree takes longer to put back from its snapshot than
// a restore may take fails each run with the reason (never a harness
// error, never a timeout, which would decide nothing), and the time is
// upkeep, not the run's; State A's side, just as slow, is not bounded.
// Each run of the side after one starts as the side's snapshot says.
func TestSlowRestoreFailsTheSubmission(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		os.MkdirAll(dir+"/"+d, 0o755)
		os.WriteFile(dir+"/"+d+"/f", []byte("x"), 0o644)
	}
	assets, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	c := hostContainer(t, []string{"/bin/sh", "-c", `sh "$SRB_CANDIDATE"`, "sh"}, func(cfg *ContainerConfig) {
		cfg.Original, cfg.Submission, cfg.Timeout = dir+"/a", dir+"/b", 20*time.Second
		cfg.Env = []string{"PATH=/usr/bin:/bin"}
		cfg.Engine = slowStarter{inner: hostEngine(assets), delay: 400 * time.Millisecond}
		cfg.RestoreTimeout = 200 * time.Millisecond
	})
	cand := &Candidate{Name: "ok", Filename: "ok.sh", Code: "test \"$(cat f)\" = x && echo y > f\n"}
	for i := range 2 {
		orig := c.Execute(t.Context(), cand, RoleOriginal)
		if !orig.Passed || orig.Harness != "" || orig.UpkeepSec < 0.4 {
			t.Fatalf("State A's run %d: %+v", i, orig)
		}
		sub := c.Execute(t.Context(), cand, RoleSubmission)
		if sub.Passed || sub.Harness != "" || sub.TimedOut || sub.Fault || sub.ExitCode != -1 || !sub.decided() ||
			!strings.Contains(sub.Stderr, "the submission's tree cannot be tested: putting it back from its snapshot") ||
			sub.UpkeepSec < 0.4 || sub.DurationSec != 0 {
			t.Fatalf("the submission's run %d: %+v", i, sub)
		}
	}
	// Within the bound the same side runs, from its snapshot.
	c.cfg.RestoreTimeout = time.Minute
	for i := range 2 {
		if sub := c.Execute(t.Context(), cand, RoleSubmission); !sub.Passed || sub.Harness != "" || sub.UpkeepSec < 0.4 {
			t.Fatalf("the submission's run %d within the bound: %+v", i, sub)
		}
	}
}

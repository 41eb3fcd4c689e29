package cli

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/testenv"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestMain makes the test binary double as srb, so scripts run the real
// command tree in a subprocess (cue's cmd/cue/cmd/script_test.go).
func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	testscript.Main(m, map[string]func(){
		"srb": func() { os.Exit(Main()) },
		// What a child of srb sees before and after processDefaults
		// (process/process_defaults.txtar).
		"srb-process-probe": func() { os.Exit(processProbe()) },
	})
}

// updateGoldens reports whether SRB_UPDATE=1: a failing cmp then rewrites
// the expected section of the script (one variable for every golden in
// the repository).
func updateGoldens() bool { return os.Getenv("SRB_UPDATE") == "1" }

// TestScript runs testdata/script/<command>/*.txtar, one subtest per
// command directory, found by walking rather than listed by hand.
func TestScript(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "script"))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seed := &goSeed{dir: t.TempDir()}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Dir:                 filepath.Join("testdata", "script", d.Name()),
				UpdateScripts:       updateGoldens(),
				RequireExplicitExec: true,
				RequireUniqueNames:  true,
				Setup: func(env *testscript.Env) error {
					env.Setenv("SRB_REPO_ROOT", repo)
					// Each script has its own State A cache.
					env.Setenv("SRB_CACHE", filepath.Join(env.WorkDir, ".srb-cache"))
					// Builds inside scripts (srb behavioural) share the user's Go build cache.
					if d, err := os.UserCacheDir(); err == nil {
						env.Setenv("GOCACHE", filepath.Join(d, "go-build"))
					}
					// The engines, for the steps behind [engines], and the
					// cache they share (the debootstrap base and the helper
					// are made once, not once per script).
					// GORACE: no race-enabled srb sleeps at its exit
					// (testenv.QuickRaceExit).
					for _, k := range []string{"BUILDKIT_HOST", "DOCKER_HOST", "SRB_REGISTRY", "GORACE"} {
						env.Setenv(k, os.Getenv(k))
					}
					if d, err := source.DefaultCacheDir(); err == nil {
						env.Setenv("SRB_SHARED_CACHE", d)
					}
					return nil
				},
				Condition: func(cond string) (bool, error) {
					switch cond {
					case "root":
						return os.Geteuid() == 0, nil
					case "engines":
						return scriptEngines()
					case "cgroupv1":
						// --host makes cgroup v1 groups here (as root).
						how, _ := (&engine.Local{}).CgroupLimits()
						return how == "cgroup v1", nil
					}
					return false, fmt.Errorf("unknown condition %q", cond)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"tree-digest": cmdTreeDigest,
					"fixture":     cmdFixture(repo),
					"replace":     cmdReplace,
					"fake-model":  cmdFakeModel,
					"todo":        cmdTodo,
					"go-seed":     seed.cmd,
					"open-dir":    cmdOpenDir,
				},
			})
		})
	}
}

// scriptEngines is the [engines] condition: Docker and BuildKit are
// reachable, checked once per test process. Unreachable engines are
// false, and an error (the script fails) under SRB_REQUIRE_ENGINES=1, as
// for the image tests ([requireEngines]).
var scriptEngines = sync.OnceValues(func() (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := engine.NewDocker()
	if err == nil {
		_, err = d.Version(ctx)
	}
	if err == nil {
		var c interface{ Close() error }
		if c, _, err = image.Dial(ctx, image.BuildKitAddr("")); err == nil {
			c.Close()
		}
	}
	if err != nil && os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
		return false, fmt.Errorf("SRB_REQUIRE_ENGINES=1 but an engine is not reachable: %v (scripts/engines.sh starts them)", err)
	}
	return err == nil, nil
})

// goSeed is a HOME holding a warm Go build cache of this machine's
// toolchain, built once per test process by the fixture task's own warm
// command (testdata/tasks/lang90-tally-c-to-go/modules/candidate/warm-home.sh:
// a program of its own, no submission fixture, built with the flags the
// task's candidate runner builds with): what `srb ladder --host
// --home-seed` copies into each tree's HOME, and the task's warm command
// starts from, so that no round and no stage compiles the standard
// library cold (25 s a round on this machine's kind).
type goSeed struct {
	dir  string
	once sync.Once
	err  error
}

// warmHome is the fixture task's warm command, from internal/cli.
const warmHome = "../../testdata/tasks/lang90-tally-c-to-go/modules/candidate/warm-home.sh"

func (g *goSeed) build() error {
	home := filepath.Join(g.dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	script, err := filepath.Abs(warmHome)
	if err != nil {
		return err
	}
	cmd := exec.Command("/bin/bash", script)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") })
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the fixture task's warm command: %v: %s", err, out)
	}
	return nil
}

// cmd is "go-seed": it sets SRB_GO_SEED to the seed's HOME, building it
// the first time any script asks.
func (g *goSeed) cmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: go-seed")
	}
	g.once.Do(func() { g.err = g.build() })
	ts.Check(g.err)
	ts.Setenv("SRB_GO_SEED", filepath.Join(g.dir, "home"))
}

// cmdFixture copies the repository's fixture tree (testdata/tasks and
// testdata/statea) into the script's work directory, so scripts can edit
// a task without touching the repository: "fixture". Running it again
// restores the pristine copy.
func cmdFixture(repo string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: fixture")
		}
		for _, sub := range []string{"tasks", "statea"} {
			src := filepath.Join(repo, "testdata", sub)
			dst := ts.MkAbs(sub)
			ts.Check(os.RemoveAll(dst)) // a fresh copy, whatever the script did
			ts.Check(copyTree(src, dst))
		}
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// cmdOpenDir makes a folder every user of this machine may reach, as a
// user's own ./out usually is (a script's work folder is not: it is
// 0700): "open-dir NAME" creates it under /tmp, mode 0755, sets NAME to
// its path and removes it when the script ends. A --host script gives it
// as a results folder to show srb closes what it writes there to the
// graded processes.
func cmdOpenDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: open-dir NAME")
	}
	d, err := os.MkdirTemp("/tmp", "srb-open-")
	ts.Check(err)
	ts.Defer(func() { os.RemoveAll(d) })
	ts.Check(os.Chmod(d, 0o755))
	ts.Setenv(args[0], d)
}

// cmdReplace edits a file in place: "replace FILE OLD NEW" replaces every
// occurrence of OLD (which must occur) with NEW; \n in either means a
// newline.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	old := strings.ReplaceAll(args[1], `\n`, "\n")
	repl := strings.ReplaceAll(args[2], `\n`, "\n")
	if !strings.Contains(string(b), old) {
		ts.Fatalf("replace: %q does not occur in %s", old, args[0])
	}
	info, err := os.Stat(p)
	ts.Check(err)
	ts.Check(os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, repl)), info.Mode().Perm()))
}

// cmdTreeDigest writes the digest of a folder (every path, its mode and
// content, links unfollowed) to a file: "tree-digest DIR FILE", so a
// script can show a folder is byte-identical after a run (cmp).
func cmdTreeDigest(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tree-digest DIR FILE")
	}
	root := ts.MkAbs(args[0])
	h := sha256.New()
	ts.Check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %v\n", rel, info.Mode())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %s\n", t)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%x\n", sha256.Sum256(b))
		}
		return nil
	}))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(fmt.Sprintf("%x\n", h.Sum(nil))), 0o644))
}

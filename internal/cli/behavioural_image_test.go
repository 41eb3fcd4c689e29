package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// requireEngines returns Docker, skipping (and saying so) when Docker or
// BuildKit is unreachable, unless SRB_REQUIRE_ENGINES=1 (CI), where that
// fails.
func requireEngines(t *testing.T) *engine.Docker {
	t.Helper()
	d, err := engine.NewDocker()
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, err = d.Version(ctx)
		cancel()
	}
	if err == nil {
		var c interface{ Close() error }
		c, _, err = image.Dial(t.Context(), image.BuildKitAddr(""))
		if err == nil {
			c.Close()
		}
	}
	if err != nil {
		if os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
			t.Fatalf("SRB_REQUIRE_ENGINES=1 but an engine is not reachable: %v (scripts/engines.sh starts them)", err)
		}
		t.Skipf("skipping outside CI: an engine is not reachable (%v); scripts/engines.sh starts them", err)
	}
	return d
}

// fixtureCopy copies the repository's fixture tasks and State A into a
// temporary folder and returns the fixture task's folder there.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, sub := range []string{"tasks", "statea"} {
		if err := copyTree(filepath.Join("..", "..", "testdata", sub), filepath.Join(root, sub)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "tasks", "lang90-tally-c-to-go")
}

// TestBehaviouralInImage runs stage 2 in the fixture's behavioural image
// (built and loaded when missing): the Go port scores every check, and a
// container killed mid-suite leaves the finished module's result, the
// rest unreached, status error and exit 1 — nothing measured lost, no
// zero published.
func TestBehaviouralInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and a Go program in it")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	// A weight-0 module that sleeps when the tree has SLOW, so the kill
	// below lands while it runs.
	cue := filepath.Join(taskDir, "task.cue")
	b, err := os.ReadFile(cue)
	if err != nil {
		t.Fatal(err)
	}
	slow := "}, {\n\t\tid:     \"slow\"\n\t\tweight: 0\n\t\tabout:  \"sleeps when the tree has SLOW\"\n\t\tkind:   \"program\"\n" +
		"\t\tparams: {dir: \"modules/slow\", command: [\"sh\", \"run.sh\"]}\n\t}, {\n\t\tid:     \"usage\""
	edited := strings.Replace(string(b), "}, {\n\t\tid:     \"usage\"", slow, 1)
	if edited == string(b) {
		t.Fatal("the fixture's usage module moved; update the test")
	}
	os.WriteFile(cue, []byte(edited), 0o644)
	tree(t, filepath.Join(taskDir, "modules", "slow"), map[string]string{"run.sh": `[ -e "$SRB_REPO/SLOW" ] && sleep 600
printf '{"checks":[{"id":"slow","verdict":"pass","summary":"done","weight":0}]}' > "$SRB_RESULT"
`})
	sub, err := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "tally-go"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	var errOut bytes.Buffer
	run := func(results string, started func(*engine.Session)) (*result.Stage, error) {
		opts := &BehaviouralOptions{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
			BehaviouralOptions: stages.BehaviouralOptions{Now: time.Now, Submission: sub, Results: results, Started: started}}
		err := runBehavioural(ctx, opts)
		st, rerr := result.ReadStage(filepath.Join(results, "behavioural.json"))
		if rerr != nil {
			t.Fatalf("%v (stage error %v)\n%s", rerr, err, errOut.String())
		}
		return st, err
	}

	results := t.TempDir()
	// The helper the suite runs is copied out of its container, to check
	// the stage's stamp against its bytes.
	helperCopy := filepath.Join(t.TempDir(), "srb-helper")
	var helperErr error
	st, err := run(results, func(s *engine.Session) { helperErr = s.CopyOut(ctx, image.HelperPath, helperCopy) })
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	// The stage was written by the image's helper for this srb (the test
	// binary, which orchestrated it): the stamp holds the helper's own
	// fingerprint (its executable's) and this srb's as the orchestrator,
	// so it is attributed to this srb and a ladder with stages 1 and 3
	// from this srb names one grader.
	srbFP := result.Fingerprint()
	if helperErr != nil {
		t.Fatalf("copying the helper out: %v", helperErr)
	}
	hb, err := os.ReadFile(helperCopy)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(hb)
	if want := map[string]any{"fingerprint": hex.EncodeToString(sum[:])[:12], "orchestrator": srbFP}; !cmp.Equal(st.Harness, want) {
		t.Errorf("stage 2 harness %v, want the helper's fingerprint and this srb's as orchestrator %v", st.Harness, want)
	}
	audit := result.NewStage(result.StageAudit, st.Task, time.Now())
	audit.Add(result.Check{ID: "honest", Verdict: result.VerdictPass, Summary: "honest", Weight: 1, Required: true})
	v := scoring.Grade(st.Task, scoring.Stages{Audit: audit, Behavioural: st}, scoring.Published())
	if len(v.Harnesses) != 2 {
		t.Errorf("the verdict did not record both stages' harnesses: %v", v.Harnesses)
	}
	if n := result.Reward(v)["harnesses_distinct"]; n != 1 {
		t.Errorf("stage 1 by this srb and stage 2 by its helper: harnesses_distinct %v, want 1 (harnesses %v)", n, v.Harnesses)
	}
	if text := report.Render(v, ""); !strings.Contains(text, "  graded by srb "+srbFP+"\n") || strings.Contains(text, "disagree") {
		t.Errorf("the report's footer does not name this srb alone:\n%s", text)
	}
	passed, total := result.Pooled(st.Checks)
	if st.Status != result.StatusOK || passed != total || total != 38 {
		t.Errorf("status %s, %d/%d checks passed; want ok, 38/38\n%s", st.Status, passed, total, errOut.String())
	}
	if im, _ := st.Metadata["image"].(map[string]any); im["tag"] != "srb/lang90-tally-c-to-go:behavioural" || st.Metadata["where"] != "container" {
		t.Errorf("metadata image %v, where %v", st.Metadata["image"], st.Metadata["where"])
	}
	for _, f := range []string{"build/result.json", "build/stdout.log", "counts/result.json"} {
		if _, err := os.Stat(filepath.Join(results, "behavioural", f)); err != nil {
			t.Errorf("module file not copied out: %v", err)
		}
	}
	lock, err := image.ReadLock(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	// The image the suite ran in is the one images.lock records (the tag
	// itself may have moved since: other builds of the fixture share this
	// engine).
	if im, _ := st.Metadata["image"].(map[string]any); lock.Images["behavioural"].Config == "" || im["id"] != lock.Images["behavioural"].Config {
		t.Errorf("the suite ran in %v, not the image images.lock records (%s)", st.Metadata["image"], lock.Images["behavioural"].Config)
	}

	// Killed while the slow module runs: build's and counts' results are
	// kept, slow and every later module are unreached, and the stage is an
	// error.
	killed := t.TempDir()
	slowSub := filepath.Join(t.TempDir(), "sub")
	if err := copyTree(sub, slowSub); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(slowSub, "SLOW"), nil, 0o644)
	sub = slowSub
	st, err = run(killed, func(s *engine.Session) {
		go func() {
			probe := filepath.Join(t.TempDir(), "probe.json")
			for ctx.Err() == nil {
				time.Sleep(200 * time.Millisecond)
				if s.CopyOut(ctx, suite.ResultsPath+"/behavioural.json", probe) != nil {
					continue
				}
				if p, err := result.ReadStage(probe); err == nil && p.Units[1].Status != result.UnitUnreached {
					s.Kill(ctx)
					return
				}
			}
		}()
	})
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != ExitCouldNotRun {
		t.Errorf("killed mid-suite: error %v, want exit %d", err, ExitCouldNotRun)
	}
	var statuses []string
	for _, u := range st.Units {
		statuses = append(statuses, u.ID+" "+u.Status)
	}
	want := []string{"build ok", "counts ok", "slow unreached", "usage unreached", "outputs unreached", "provenance unreached", "notes unreached"}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("units after the kill (-want +got):\n%s", diff)
	}
	if p, tot := result.Pooled(st.Checks); st.Status != result.StatusError || p != 20 || tot != 20 {
		t.Errorf("status %s, %d/%d checks; want error and build's and counts' 20/20 kept", st.Status, p, tot)
	}
	// srb rewrote the result the killed container left; the helper's stamp
	// is kept as the helper wrote it.
	if st.Harness["orchestrator"] != srbFP || st.Harness["fingerprint"] != hex.EncodeToString(sum[:])[:12] {
		t.Errorf("killed mid-suite: harness %v", st.Harness)
	}
	if reason, _ := st.Metadata["error"].(string); !strings.Contains(reason, "the container ended mid-suite (exit 137") || !strings.Contains(reason, "the 2 module(s) that finished are kept, 5 are unreached") {
		t.Errorf("metadata error %q", reason)
	}
}

// tree writes files (path → content) under root.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFreezeInImages freezes the fixture in its images: State A recorded
// in the verification image (make and cc there), the identity run twice
// in the behavioural image (no cc there) with the record run's ledger
// imported; the truth observed equals the committed truth, and its
// provenance names both images and the toolchains seen in the image.
func TestFreezeInImages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two images")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := runFreeze(ctx, &FreezeOptions{IO: IOStreams{Out: &out, ErrOut: &errOut}, Task: taskDir, FreezeOptions: stages.FreezeOptions{Now: time.Now}})
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "frozen; the identity run reached 1.0 in every module twice") ||
		!strings.Contains(errOut.String(), "identity run 2: 6 module(s), 38/38 checks passed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	lock, err := image.ReadLock(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"build", "counts", "usage", "outputs", "provenance"} {
		got, err := behavioural.ReadTruth(filepath.Join(taskDir, "truth", m+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := behavioural.ReadTruth(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go", "truth", m+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Observations, got.Observations); diff != "" || got.CasesFingerprint != want.CasesFingerprint {
			t.Errorf("%s: observations differ from the committed truth (-committed +images):\n%s", m, diff)
		}
		p := got.Provenance
		if p.Where != "container" || p.Images["verification"] != lock.Images["verification"].Digest || p.Images["behavioural"] != lock.Images["behavioural"].Digest ||
			!strings.HasPrefix(p.Toolchains["make"], "GNU Make 4.3") || !strings.HasPrefix(p.Toolchains["cc"], "cc (Debian 12.2.0") {
			t.Errorf("%s: provenance %+v (lock %v)", m, p, lock.Images)
		}
	}
}

// TestBehaviouralFaultsInImage runs, in the behavioural image, modules
// that hang past their deadline, crash, write invalid JSON and leave a
// server running, between two that work: each gets the right status, the
// working modules' checks are all kept, the server is reaped, and the
// stage ran (exit 0: module faults are results, not harness faults).
func TestBehaviouralFaultsInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	cue := filepath.Join(taskDir, "task.cue")
	b, err := os.ReadFile(cue)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\tmodules: [{")
	end := strings.Index(s, "\nverification: {")
	if start < 0 || end < 0 {
		t.Fatal("the fixture's behavioural block moved; update the test")
	}
	mod := func(id, script string, timeout int) string {
		return "{\n\t\tid: \"" + id + "\"\n\t\tabout: \"" + id + "\"\n\t\tkind: \"program\"\n\t\ttimeout_sec: " + strconv.Itoa(timeout) +
			"\n\t\tparams: {dir: \"modules/faults\", command: [\"sh\", \"" + script + "\"]}\n\t}"
	}
	// A program module that hangs on its own is a harness fault that stops
	// the stage (behavioural_harness_faults covers it); these are the
	// faults that are results.
	mods := []string{mod("first", "ok.sh", 60), mod("crash", "crash.sh", 60), mod("badjson", "badjson.sh", 60),
		mod("server", "server.sh", 60), mod("last", "ok.sh", 60)}
	s = s[:start] + "\tmodules: [" + strings.Join(mods, ", ") + "]\n}\n" + s[end:]
	os.WriteFile(cue, []byte(s), 0o644)
	os.RemoveAll(filepath.Join(taskDir, "truth"))
	ok := `printf '{"checks":[{"id":"a","verdict":"pass","summary":"fine"},{"id":"b","verdict":"fail","summary":"measured"}]}' > "$SRB_RESULT"` + "\n"
	tree(t, filepath.Join(taskDir, "modules", "faults"), map[string]string{
		"ok.sh":      ok,
		"crash.sh":   "echo about to crash; kill -SEGV $$\n",
		"badjson.sh": `printf '{"checks": [' > "$SRB_RESULT"` + "\n",
		"server.sh":  "sleep 600 > /dev/null 2>&1 &\necho $! > \"$SRB_WORK/server.pid\"\n" + ok,
	})
	sub, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "tally-go"))
	results := t.TempDir()
	var errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	err = runBehavioural(ctx, &BehaviouralOptions{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
		BehaviouralOptions: stages.BehaviouralOptions{Now: time.Now, Submission: sub, Results: results}})
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	st, err := result.ReadStage(filepath.Join(results, "behavioural.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range st.Units {
		got[u.ID] = u.Status + ": " + firstLine(u.Summary)
	}
	want := map[string]string{
		"first":   "ok: ",
		"crash":   "error: killed by signal 11 (SIGSEGV): a killed module's result is never counted; last output:",
		"badjson": "error: wrote an unusable result (exit 0): JSONDecodeError: unexpected EOF",
		"server":  "ok: ",
		"last":    "ok: ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unit statuses (-want +got):\n%s\n%s", diff, errOut.String())
	}
	if u := st.Unit("server"); u == nil || u.Metadata["reaped_process_group"] != true {
		t.Errorf("the server module's leftover was not reaped: %v", u)
	}
	var ids []string
	for _, c := range st.Checks {
		ids = append(ids, c.ID+" "+c.Verdict)
	}
	if diff := cmp.Diff([]string{"first/a pass", "first/b fail", "server/a pass", "server/b fail", "last/a pass", "last/b fail"}, ids); diff != "" {
		t.Errorf("checks kept (-want +got):\n%s", diff)
	}
	if st.Status != result.StatusOK {
		t.Errorf("stage status %s, want ok (module faults are results)", st.Status)
	}
}

// TestStageImageBuildExitCodes: when the stage image must be built first
// and srb build refuses on the task's own configuration (exit 2: an
// identity run that fails, a link out of modules/), srb behavioural and
// srb verification exit 2 with metadata.config_error, not 1; a build that
// could not run stays a harness fault (exit 1). No engine is needed: the
// engine is a fake without the image.
func TestStageImageBuildExitCodes(t *testing.T) {
	taskDir := fixtureCopy(t)
	sub, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "tally-go"))
	original := filepath.Join(taskDir, "..", "..", "statea", "tally-1.0")
	for _, c := range []struct {
		name     string
		buildErr error
		code     int
	}{
		{"task's fault", silent(ExitBadTask, errors.New("1 task(s) failed the identity run: their truth does not reproduce on State A")), ExitBadTask},
		{"harness fault", couldNotRun(errors.New("buildkitd: connection refused")), ExitCouldNotRun},
	} {
		build := func(context.Context, *task.Task, string) error { return c.buildErr }
		newEngine := func() (engine.Runner, error) { return &engine.Fake{Images: map[string]engine.ImageInfo{}}, nil }
		for stage, run := range map[string]func(results string) error{
			result.StageBehavioural: func(results string) error {
				return runBehavioural(t.Context(), &BehaviouralOptions{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
					Task: taskDir, BehaviouralOptions: stages.BehaviouralOptions{Now: time.Now, Submission: sub, Results: results, Original: original},
					Engine: newEngine, BuildImage: build})
			},
			result.StageVerification: func(results string) error {
				dir := t.TempDir()
				nothing := StageDriver{Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "nothing.json", reportCall(false, "", "nothing to try"))}}
				return runVerification(t.Context(), &VerificationOptions{IO: IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
					Task: taskDir, VerificationOptions: stages.VerificationOptions{Now: time.Now, Lookup: func(string) (string, bool) { return "", false },
						Submission: sub, Results: results, Original: original, Force: true, Adversary: nothing, Adjudicator: nothing},
					Engine: newEngine, BuildImage: build})
			},
		} {
			t.Run(c.name+"/"+stage, func(t *testing.T) {
				results := t.TempDir()
				err := run(results)
				var ee *exitError
				if !errors.As(err, &ee) || ee.Code != c.code {
					t.Fatalf("error %v, want exit %d", err, c.code)
				}
				st, rerr := result.ReadStage(filepath.Join(results, stage+".json"))
				if rerr != nil {
					t.Fatal(rerr)
				}
				if got := st.Metadata["config_error"] == true; got != (c.code == ExitBadTask) || st.Status != result.StatusError {
					t.Errorf("status %s, metadata %v", st.Status, st.Metadata)
				}
			})
		}
	}
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestBehaviouralMemoryBombInImage: a submission whose program starts
// many small processes, each holding 2 MB, past the behavioural
// container's memory limit (256 MiB here) makes the kernel's OOM killer
// choose srb's helper, the container's largest process (Docker drops
// CAP_SYS_RESOURCE, so it cannot be exempted). That is the submission's
// failure, never a container fault: the stage ran (exit 0, status ok),
// build's result is kept, the modules not reached score zero, and
// metadata says the container reached its memory limit. The identity run
// srb build runs first is bounded by the same limit, and passes.
func TestBehaviouralMemoryBombInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	cue := filepath.Join(taskDir, "task.cue")
	b, err := os.ReadFile(cue)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cue, append(b, "\nlimits: {memory_mib: 256}\n"...), 0o644)
	sub := filepath.Join(t.TempDir(), "sub")
	if err := copyTree(filepath.Join("..", "..", "testdata", "submissions", "tally-go"), sub); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(sub, "main.go")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	bomb := strings.Replace(string(src), "func main() {\n", "func main() {\n"+
		"\t_ = exec.Command(\"/bin/sh\", \"-c\", `i=0; while [ $i -lt 400 ]; do sh -c 'x=$(head -c 2000000 /dev/zero | tr \"\\0\" a); sleep 20' & i=$((i+1)); done; wait`).Run()\n", 1)
	bomb = strings.Replace(bomb, "\t\"os\"\n", "\t\"os\"\n\t\"os/exec\"\n", 1)
	if bomb == string(src) || !strings.Contains(bomb, "os/exec") {
		t.Fatal("the fixture submission's main moved; update the test")
	}
	os.WriteFile(main, []byte(bomb), 0o644)
	results := t.TempDir()
	var errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	err = runBehavioural(ctx, &BehaviouralOptions{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
		BehaviouralOptions: stages.BehaviouralOptions{Now: time.Now, Submission: sub, Results: results}})
	st, rerr := result.ReadStage(filepath.Join(results, "behavioural.json"))
	if rerr != nil {
		t.Fatalf("%v (stage error %v)\n%s", rerr, err, errOut.String())
	}
	if err != nil || st.Status != result.StatusOK {
		t.Fatalf("error %v, status %s, metadata %v; want the stage ran (the submission's failure)\n%s", err, st.Status, st.Metadata, errOut.String())
	}
	// The OOM killer chooses the largest process: srb's helper (the
	// suite stops there, what finished is kept, the rest unreached) or,
	// when the bomb's shells outgrow it, the shells (every module runs and
	// the program's checks fail). srb cannot exempt its helper where the
	// container's root lacks CAP_SYS_RESOURCE (this machine), so either
	// may happen; both record the limit and fail the gate.
	reason, _ := st.Metadata["memory_limit_killed"].(string)
	if !strings.Contains(reason, "reached its memory limit (256 MiB") {
		t.Errorf("metadata memory_limit_killed %q", reason)
	}
	if u := st.Unit("build"); u == nil || u.Status != result.UnitOK {
		t.Errorf("build: %+v, want its result kept", u)
	}
	switch u := st.Unit("counts"); {
	case strings.Contains(reason, "killed srb's helper"):
		if !strings.Contains(reason, "the 1 module(s) that finished are kept, 5 are unreached") || u == nil || u.Status != result.UnitUnreached {
			t.Errorf("the helper was killed (%q) but counts is %+v, want unreached", reason, u)
		}
	case strings.Contains(reason, "of the submission's processes"):
		if u == nil || u.Status == result.UnitUnreached {
			t.Errorf("the submission's processes were killed (%q) but counts is %+v, want it run", reason, u)
		}
	default:
		t.Errorf("memory_limit_killed %q names neither the helper nor the submission's processes", reason)
	}
	if ok, _, _ := scoring.BehaviouralReachesGate(st, scoring.Published(), ""); ok {
		t.Error("stage 2 passed its gate after the submission's program filled the container")
	}
}

package verification

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// A submission whose own code fills the disk when the adversary runs it in
// the workspace view (its Makefile, its tests, run by the adversary's
// `make` or `go test`) must leave State A's next run, and its own, no
// harness error: the view's sandbox is kept between commands, so what a
// command left there stayed for the rest of the round, the disk full (a
// machine with free room for every side's and view's bound, the task's
// limits.disk here, as docs/LADDER.md asks). A view past the bound is put
// back as it started, and the command's output says so.
func TestRunToolFilledDiskIsNoFault(t *testing.T) {
	t.Parallel()
	c := buildContainer(t, "", 8<<20, smallDisk(t, 48<<20), func(cfg *ContainerConfig) {
		// The run tool's HOME is each view's own, as with --host.
		cfg.ToolEnv = func(name string) string {
			if name == "HOME" {
				return ""
			}
			return os.Getenv(name)
		}
	})
	run, _ := c.RunTool()
	for _, fill := range []string{
		`cat /dev/zero > fill; true`,
		`cat /dev/zero > "$HOME/fill"; true`,
		`mkdir -p many; i=0; while [ $i -lt 3000 ]; do : > many/f$i; i=$((i+1)); done; cat /dev/zero > fill; true`,
	} {
		res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", fill},
			Dir: c.views[RoleSubmission].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("the filling command: %v (%+v)", err, res)
		}
		if !strings.Contains(string(res.Stderr), "the view was put back as it started") {
			t.Errorf("the filling command's output says nothing of the view put back: %q", res.Stderr)
		}
		ok := &Candidate{Name: "ok", Filename: "ok.sh", Code: "# " + strings.Repeat("x", 64<<10) + "\nexit 0\n"}
		for _, role := range []string{RoleOriginal, RoleSubmission} {
			if r := c.Execute(t.Context(), ok, role); r.Harness != "" {
				t.Fatalf("after %q in the workspace view, the %s's run is a harness error: %.600s", fill, role, r.Harness)
			}
		}
		// The original view's commands still run.
		res, err = run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", "echo x > mine && cat mine"},
			Dir: c.views[RoleOriginal].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
		if err != nil || strings.TrimSpace(string(res.Stdout)) != "x" {
			t.Fatalf("after %q in the workspace view, a command in the original view: %v %+v", fill, err, res)
		}
	}
}

// slowSubmission is a sandbox whose every run of the submission's side
// costs the clock upkeep seconds of the grader's own steps (a restore and
// a clearing of a tree its build made slow to put back, each within the
// restore's bound) and sec seconds of the candidate's run (a program slow
// in stage 3 alone); State A's runs cost one second. Every run passes.
type slowSubmission struct {
	clock       *time.Time
	sec, upkeep float64
	runs        map[string]int
}

func (f *slowSubmission) Reset(context.Context) error { return nil }
func (f *slowSubmission) Execute(_ context.Context, _ *Candidate, role string) CandidateRun {
	f.runs[role]++
	r := pass
	r.Target, r.DurationSec = role, 1
	if role == RoleSubmission {
		r.DurationSec, r.UpkeepSec = f.sec, f.upkeep
	}
	*f.clock = f.clock.Add(time.Duration((r.DurationSec + r.UpkeepSec) * float64(time.Second)))
	return r
}
func (f *slowSubmission) Roots() []agent.RootSpec                      { return nil }
func (f *slowSubmission) RunTool() (agent.Runner, func(string) string) { return nil, nil }
func (f *slowSubmission) Close() error                                 { return nil }

// The grader's upkeep around the submission's runs is not the adversary's
// budget, but it is the stage's clock (timeouts.verification), and a
// stage whose clock runs out is an error, an invalid verdict: a submission
// whose every restore takes most of its bound made each round last as
// long as the adversary kept trying (here 1,000 s a run, a round of eight
// candidates 8,000 s for a 3,600 s budget; six rounds of fifty candidates
// would pass the default 54,000 s many times over). What the submission's
// side costs a round in upkeep is bounded by the round's budget: past it,
// its runs fail with the reason (exit -1, never a timeout or a harness
// error), so the round lasts at most about twice its budget and the
// adversary's next candidate that passes on State A is a break.
func TestSubmissionUpkeepIsBoundedPerRound(t *testing.T) {
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	sb := &slowSubmission{clock: &clock, sec: 1, upkeep: 1000, runs: map[string]int{}}
	var turns []turn
	for i := 1; i <= 8; i++ {
		turns = append(turns, try(fmt.Sprintf("c%d", i), "true"))
	}
	turns = append(turns, found("c8", "the submission cannot be tested"))
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox:  func(context.Context, string) (Sandbox, error) { return sb, nil },
		NewDriver:   func(Adversary) (models.Driver, error) { return scripted(t, "m", turns...), nil },
		Now:         func() time.Time { return clock },
	}
	_, rounds := runStage(t, cfg)
	r := roundOf(t, rounds, "a01")
	if el := r["elapsed_sec"].(float64); el > 2*3600 {
		t.Errorf("the round took %v s of the clock for a 3,600 s budget", el)
	}
	if sb.runs[RoleSubmission] != 4 {
		t.Errorf("the submission's side ran %d times, want 4 (its upkeep then passed the round's budget)", sb.runs[RoleSubmission])
	}
	if r["submission_upkeep_sec"] != 4000.0 {
		t.Errorf("submission_upkeep_sec %v, want 4000", r["submission_upkeep_sec"])
	}
	if r["outcome"] != OutcomeBroken {
		t.Fatalf("round: outcome %v: %v", r["outcome"], r["reason"])
	}
	var last map[string]any
	for _, c := range r["candidates"].([]any) {
		if c := c.(map[string]any); c["name"] == "c8" {
			for _, run := range c["runs"].([]any) {
				if run := run.(map[string]any); run["target"] == RoleSubmission {
					last = run
				}
			}
		}
	}
	if last == nil || last["exit_code"] != -1.0 || last["timed_out"] != false || last["harness_error"] != nil ||
		!strings.Contains(last["stderr"].(string), "the submission's tree cannot be tested") {
		t.Errorf("c8's last run on the submission: %v", last)
	}
}

// A submission can tell stage 3 from stage 2 (SRB_WORK in its build's
// environment, the candidate user, the image's layout) and choose to be
// untestable there only, when the runner builds it, before any candidate
// runs, where the candidate cannot bound it.
//
// A build that fails there (a fault code) beside State A's passing run is
// the submission's failure: the pair discriminates, and the round is a
// break, never an error (docs/LADDER.md, "Stage 3 untestable by choice").
func TestStage3OnlyFaultIsNoInvalidVerdict(t *testing.T) {
	sb := &replay{runs: map[string][]CandidateRun{RoleOriginal: {pass}, RoleSubmission: {fault}}, n: map[string]int{}}
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox:  func(context.Context, string) (Sandbox, error) { return sb, nil },
		NewDriver: func(Adversary) (models.Driver, error) {
			return scripted(t, "m", try("c1", "exit 0"), try("c2", "exit 0"), found("c2", "the submission cannot run"), nothing("the submission could not be tested")), nil
		},
	}
	_, rounds := runStage(t, cfg)
	if r := roundOf(t, rounds, "a01"); r["outcome"] != OutcomeBroken {
		t.Fatalf("round: outcome %v: %v", r["outcome"], r["reason"])
	}
}

// A build that hangs in stage 3 alone timed every run of the submission's
// side out, and a timeout is undecided on either side (issue 15), so every
// round was an error and the verdict invalid, never the low score its
// defect earns (the test skipped as an open protocol hole). The warm-up is
// no candidate but the task's runner building the tree, with a bound of
// its own (ContainerConfig.WarmUpTimeout): past it, where State A's
// warm-up ended within it, the submission's side cannot be tested, every
// run of it fails, and a pair whose State A run passes is a break.
func TestStage3OnlyHangIsNoInvalidVerdict(t *testing.T) {
	t.Parallel()
	c := buildContainer(t, `if [ -n "$SRB_WORK" ]; then sleep 600; fi`, 0, func(cfg *ContainerConfig) { cfg.Timeout = 2 * time.Second })
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox:  func(context.Context, string) (Sandbox, error) { return nopClose{c}, nil },
		NewDriver: func(Adversary) (models.Driver, error) {
			return scripted(t, "m", try("c1", "exit 0"), try("c2", "timeout 1 true"), found("c2", "the submission cannot run"), nothing("the submission could not be tested")), nil
		},
	}
	_, rounds := runStage(t, cfg)
	if r := roundOf(t, rounds, "a01"); r["outcome"] != OutcomeBroken {
		t.Fatalf("round: outcome %v: %v", r["outcome"], r["reason"])
	}
	r := c.Execute(t.Context(), &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}, RoleSubmission)
	if r.Harness != "" || r.Passed || r.TimedOut || !strings.Contains(r.Stderr, "warm-up run") || !strings.Contains(r.Stderr, "where State A's did") {
		t.Fatalf("the submission's run after its warm-up hung: %+v", r)
	}
}

// The warm-up's bound is its own: a genuine tree whose first build takes
// longer than one candidate run may (a cold build, cached in SRB_WORK for
// the runs after it) is tested like any other, its runs starting from
// what the warm-up built. Before the warm-up had its own bound, it timed
// out with the run's, its snapshot held no build, and every run of the
// side built again and timed out: every pair undecided.
func TestWarmUpHasItsOwnBound(t *testing.T) {
	t.Parallel()
	c := buildContainer(t, `if [ ! -f "$SRB_WORK/built" ]; then sleep 4; touch "$SRB_WORK/built"; fi`, 0, func(cfg *ContainerConfig) {
		cfg.Timeout, cfg.WarmUpTimeout = 2*time.Second, time.Minute
	})
	ok := &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}
	for i := range 2 {
		if r := c.Execute(t.Context(), ok, RoleSubmission); !r.Passed || r.Harness != "" {
			t.Fatalf("the submission's run %d after a warm-up of 4 s within its bound: %+v", i, r)
		}
	}
}

// State A's warm-up past its bound is the task's bound or the machine,
// never the submission's: the run is a harness error (an invalid verdict),
// whichever side ran first, and the submission's side is not ruled
// untestable on it.
func TestStateAWarmUpPastItsBoundIsAnError(t *testing.T) {
	t.Parallel()
	for _, first := range []string{RoleOriginal, RoleSubmission} {
		c := buildContainer(t, `sleep 600`, 0, func(cfg *ContainerConfig) {
			cfg.Original = cfg.Submission
			cfg.Timeout = 2 * time.Second
		})
		r := c.Execute(t.Context(), &Candidate{Name: "ok", Filename: "ok.sh", Code: "exit 0\n"}, first)
		if r.Harness == "" || !strings.Contains(r.Harness, "State A's warm-up run") {
			t.Fatalf("the %s's run first, State A's warm-up hung: %+v; want a harness error naming State A's warm-up", first, r)
		}
	}
}

// nopClose is a sandbox whose Close the test leaves to its cleanup.
type nopClose struct{ Sandbox }

func (nopClose) Close() error { return nil }

// poisonStarter starts sessions through a Fake whose containers act as a
// view container does once a command run in it as root replaced the
// image's /bin/sh (a command whose argv holds "poison"): every later exec
// and reap there fails, as Docker's did (`ln -sf /bin/false /bin/sh` in
// the workspace view: "reap in …: exit 1" after it and every command
// after it).
type poisonStarter struct{ inner Starter }

func (p poisonStarter) Start(ctx context.Context, spec engine.Spec) (*engine.Session, error) {
	s, err := p.inner.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return engine.NewSession(s.ID, s.Image, &poisonable{recSession: &recSession{spec: spec, s: s}}), nil
}

type poisonable struct {
	*recSession
	// stealth: the command replaced /bin/sh with something that exits 0
	// (`ln -sf /bin/true /bin/sh`): the reap "succeeds", the next command
	// cannot start.
	poisoned, stealth bool
}

func (p *poisonable) Exec(ctx context.Context, es engine.ExecSpec) (*engine.Result, error) {
	if p.poisoned {
		return nil, errors.New("exec: no pid line from the exec wrapper")
	}
	if argv := strings.Join(es.Argv, " "); strings.Contains(argv, "poison") {
		p.poisoned = true
	} else if strings.Contains(argv, "stealth") {
		p.poisoned, p.stealth = true, true
	}
	return p.recSession.Exec(ctx, es)
}

func (p *poisonable) Reap(ctx context.Context, user string) (bool, error) {
	if p.poisoned && !p.stealth {
		return false, errors.New("reap in img: exit 1: ")
	}
	return p.recSession.Reap(ctx, user)
}

// In the image the run tool runs a command as root in its view's
// container, so the submission's Makefile or tests, run there by the
// adversary, can replace what the container's own upkeep runs (/bin/sh):
// every later command in that view was a tool error, and a round whose
// tool calls fail more than half the time is an error, an invalid verdict
// the submission chose. A view container that fails its own upkeep or
// cannot start a command is replaced by a fresh one from the image (the
// view as it started), the command is run again there once when it could
// not start, and neither is a tool error.
func TestPoisonedViewContainerIsReplaced(t *testing.T) {
	fake := &engine.Fake{ExecFunc: func(_ context.Context, _ *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		return &engine.Result{ExitCode: 0, Stdout: []byte("ran\n")}, nil
	}}
	c, err := NewContainer(context.Background(), ContainerConfig{Engine: poisonStarter{inner: fake}, Image: "img", Original: stateA, Submission: goPort,
		Command: []string{"/bin/sh", "-c", "true"}, Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run, _ := c.RunTool()
	started := len(fake.Containers())
	for i, argv := range [][]string{{"make", "poison"}, {"make"}, {"make", "poison"}, {"make", "test"}, {"make", "stealth"}, {"make", "after"}, {"make", "test"}} {
		res, err := run.Run(context.Background(), agent.Command{Argv: argv, Dir: "/srb/view/workspace", Timeout: time.Minute})
		if err != nil {
			t.Fatalf("command %d %v: a tool error: %v", i, argv, err)
		}
		if res.ExitCode != 0 || !strings.Contains(string(res.Stdout), "ran") {
			t.Errorf("command %d %v: %+v", i, argv, res)
		}
		poisoned := argv[len(argv)-1] == "poison" || argv[len(argv)-1] == "after"
		if got := strings.Contains(string(res.Stderr), "started again from the image"); got != poisoned {
			t.Errorf("command %d %v: stderr %q", i, argv, res.Stderr)
		}
	}
	views := fake.Containers()[started:]
	closed := 0
	for _, v := range views {
		if v.Closed() {
			closed++
		}
	}
	if len(views) != 4 || closed != 3 {
		t.Errorf("%d workspace view containers, %d removed: want 4, the three poisoned ones removed", len(views), closed)
	}
	// The original view was never touched.
	if _, err := run.Run(context.Background(), agent.Command{Argv: []string{"make"}, Dir: "/srb/view/original", Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
}

// A program under test that is slow in stage 3 alone (docs/LADDER.md,
// "Stage 3, untestable by choice") spent the adversary's budget: at 290 s
// a call in a 3,600 s round, twelve candidates and the round ended without
// a report. Its runs' time past State A's is now the round's upkeep up to
// the round's budget: the adversary's twenty candidates all run. The excess
// never fails the submission (a candidate decides how long its run takes),
// so with nothing to find the round survives.
func TestStage3OnlySlowProgramIsNotTheAdversarysBudget(t *testing.T) {
	clock := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	sb := &slowSubmission{clock: &clock, sec: 290, runs: map[string]int{}}
	var turns []turn
	for i := 1; i <= 20; i++ {
		turns = append(turns, try(fmt.Sprintf("c%d", i), "true"))
	}
	turns = append(turns, nothing("twenty candidates, no difference"))
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox:  func(context.Context, string) (Sandbox, error) { return sb, nil },
		NewDriver:   func(Adversary) (models.Driver, error) { return scripted(t, "m", turns...), nil },
		Now:         func() time.Time { return clock },
	}
	_, rounds := runStage(t, cfg)
	r := roundOf(t, rounds, "a01")
	if r["outcome"] != OutcomeSurvived || r["loop_outcome"] != agent.OutcomeSubmitted {
		t.Fatalf("round: outcome %v, loop %v: %v", r["outcome"], r["loop_outcome"], r["reason"])
	}
	if n := sb.runs[RoleSubmission]; n != 20 {
		t.Errorf("the submission's side ran %d times, want all 20 candidates", n)
	}
	if ex := r["submission_excess_sec"]; ex != 20*289.0 {
		t.Errorf("submission_excess_sec %v, want 20 × 289", ex)
	}
	if el := r["elapsed_sec"].(float64); el > 2*3600+300 {
		t.Errorf("the round took %v s of the clock for a 3,600 s budget", el)
	}
	for _, c := range r["candidates"].([]any) {
		for _, run := range c.(map[string]any)["runs"].([]any) {
			if run := run.(map[string]any); run["target"] == RoleSubmission && run["passed"] != true {
				t.Errorf("a run of the submission failed: %v", run)
			}
		}
	}
}

// The submission's restores and its runs' excess time share one allowance
// (the round's budget): a run that takes 290 s and costs 140 s of upkeep
// on the submission's side made a round last three times its budget when
// each had an allowance of its own, and six such rounds ran the stage's
// clock out (an invalid verdict). Together they stop at the budget, so the
// round lasts at most about twice it.
func TestUpkeepAndExcessShareOneAllowance(t *testing.T) {
	clock := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	sb := &slowSubmission{clock: &clock, sec: 290, upkeep: 140, runs: map[string]int{}}
	var turns []turn
	for i := 1; i <= 40; i++ {
		turns = append(turns, try(fmt.Sprintf("c%d", i), "true"))
	}
	turns = append(turns, nothing("no difference"))
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox:  func(context.Context, string) (Sandbox, error) { return sb, nil },
		NewDriver:   func(Adversary) (models.Driver, error) { return scripted(t, "m", turns...), nil },
		Now:         func() time.Time { return clock },
	}
	_, rounds := runStage(t, cfg)
	r := roundOf(t, rounds, "a01")
	if ex, _ := r["submission_excess_sec"].(float64); ex == 0 {
		t.Errorf("submission_excess_sec %v", r["submission_excess_sec"])
	}
	// Each try costs 431 s of the clock (1 s on State A, 290 s and 140 s
	// of upkeep on the submission's side): seventeen tries, then the
	// budget is spent, the credit having shrunk as the upkeep grew.
	if el := r["elapsed_sec"].(float64); el > 2*3600+431 {
		t.Errorf("the round took %v s of the clock for a 3,600 s budget", el)
	}
}

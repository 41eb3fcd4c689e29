package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// VerificationOptions are one run of stage 3.
type VerificationOptions struct {
	// Submission is the submitted tree.
	Submission string
	// Results is the results folder: audit.json and behavioural.json are
	// read there (the gate), verification.json written.
	Results string
	// Original is State A's tree; "" is Task.StateA's.
	Original string
	// Logs is where the transcripts go, under verification/; "" is
	// Results.
	Logs string
	// KeepWork keeps each round's scratch folder under it.
	KeepWork string
	// Force runs the stage even when the gates say it was not earned.
	Force bool
	// Fresh plays every round, even those an earlier run on the same
	// results folder finished on the same inputs.
	Fresh bool
	// Adversary overrides every adversary's position (adversary n of a
	// scripted one replays Scripts[(n-1) % len]); Adversaries overrides
	// single adversaries by id (and wins); Adjudicator overrides the
	// adjudicator's. Zero fields keep the task's.
	Adversary   pipeline.Driver
	Adversaries map[string]pipeline.Driver
	Adjudicator pipeline.Driver
	// Host runs the rounds on this machine (the host's toolchains,
	// [HostVerification]: a session of engine.Local per tree) instead of
	// in containers of the task's verification image.
	Host bool
	// HomeSeed, on a Host run, is a folder whose content is copied into
	// each tree's HOME for its warm-up run, a copy per tree and round
	// ([verification.ContainerConfig.HomeSeed]): a warm build cache of the
	// host's toolchain, say, so the task's runner does not compile its
	// standard library cold in every round. It must hold nothing a graded
	// party made (the operator's trust: srb only reads it). "" seeds
	// nothing; an error names a seed that is not a folder.
	HomeSeed string
	// Image, when set, is the image each round's container starts from
	// instead of the task's verification image.
	Image string
	// Lookup reads credentials by name; nil is os.LookupEnv.
	Lookup func(string) (string, bool)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Out receives the stage's summary lines; Log its progress lines.
	Out, Log io.Writer
}

// Verification runs stage 3 on t (HARNESS.md §1.4 verification, §4.3).
// It gates on the results folder's audit.json and behavioural.json
// unless opts.Force; a stage that was not earned writes nothing, removes
// a stale verification.json and returns nil. Otherwise it writes
// verification.json on every path, prints "verification: S survived, B
// broke through, E did not complete" and a line per round on Out, and
// returns nil when the stage ran.
func Verification(ctx context.Context, t *Task, opts VerificationOptions) error {
	now := orNow(opts.Now)
	logw, outw := orDiscard(opts.Log), orDiscard(opts.Out)
	lookup := opts.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	sr := newRun(result.StageVerification, t, opts.Results, now, logw)
	out, fail := sr.out, sr.fail
	defer sr.stamp(t, opts.Image, opts.Host)()

	// The gates (HARNESS.md §7 bugs 5 and 6): not earned means no file.
	if earned, why := pipeline.Earned(opts.Results, t.ID, t.Policy, sr.now); !earned {
		if !opts.Force {
			fmt.Fprintf(outw, "verification: not run -- %s\n", why)
			if err := os.Remove(out); err == nil {
				fmt.Fprintf(outw, "verification: removed stale %s\n", out)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return couldNotRun(fmt.Errorf("verification: remove stale %s: %w", out, err))
			}
			return nil
		}
		fmt.Fprintf(logw, "srb: verification: forced, though %s; the scorer will not pay for it\n", why)
	}

	if st, err := os.Stat(opts.Submission); err != nil || !st.IsDir() {
		return fail(pipeline.CouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	v := t.Verification
	tmpl, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(v.Prompt)))
	if err != nil {
		return fail(pipeline.BadTask, fmt.Sprintf("verification prompt not readable: %v", err), map[string]any{"config_error": true})
	}
	assets, err := filepath.Abs(t.Dir)
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	// The rest of the launch check runs in each round's sandbox (a
	// ladder's rounds too: it names the task's image by its id), and with
	// --host once on this machine before any round.
	if err := checkImageCommand(v.CandidateCommand, v.AssetProblem); err != nil {
		return fail(pipeline.BadTask, fmt.Sprintf("verification.candidate_command: %v", err), map[string]any{"config_error": true})
	}

	// Every position, with the overrides, checked before a round starts.
	positions := t.Positions(result.StageVerification)
	adjCfg := opts.Adjudicator.Apply(positions[0].Config, 1)
	taskScript(t.Dir, &adjCfg)
	positions[0].Config = adjCfg
	advCfg := map[string]models.Config{}
	for i, a := range v.Adversaries {
		d, ok := opts.Adversaries[a.ID]
		if !ok {
			d = opts.Adversary
		}
		c := d.Apply(positions[i+1].Config, i+1)
		taskScript(t.Dir, &c)
		positions[i+1].Config = c
		advCfg[a.ID] = c
	}
	for id := range opts.Adversaries {
		if !slices.ContainsFunc(v.Adversaries, func(a verification.Adversary) bool { return a.ID == id }) {
			return fail(pipeline.CouldNotRun, fmt.Sprintf("an adversary script names %s, which is not one of the task's adversaries", id), nil)
		}
	}
	if err := models.Preflight(lookup, positions...); err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}

	// The image is found (built and loaded when missing or stale) before
	// any round starts, not six times over as six rounds that could not
	// start; with no engine nothing runs, and never on this machine
	// instead.
	var eng engine.Runner
	var img *suite.Image
	ref := HostVerificationImage
	if !opts.Host {
		if t.Images == nil {
			err = errors.New("no stage images were given")
		} else {
			eng, img, err = t.Images(ctx, result.StageVerification, opts.Image, logw)
		}
		if err != nil {
			code, meta := imageFailure(err)
			return fail(code, err.Error()+" (srb verification --host runs the rounds here)", meta)
		}
		ref = img.Ref
	} else {
		eng = HostVerification(v.Assets, assets)
		// The task's files are on this machine: a command that names one
		// it lacks is the task's fault, found once, before any round.
		err := verification.CheckLaunch(ctx, eng, ref, map[string]string{"srb.task": t.ID, "srb.stage": result.StageVerification},
			v.CandidateCommand, []string{v.Assets})
		if err != nil {
			return fail(pipeline.BadTask, fmt.Sprintf("verification.candidate_command: %v", err), map[string]any{"config_error": true})
		}
	}

	origDir := opts.Original
	if origDir != "" {
		if st, err := os.Stat(origDir); err != nil || !st.IsDir() {
			return fail(pipeline.CouldNotRun, "original not found at "+origDir, nil)
		}
	}
	origDir, cleanup, err := original(ctx, t, origDir)
	if err != nil {
		return fail(pipeline.CouldNotRun, fmt.Sprintf("state A: %v", err), nil)
	}
	defer cleanup()
	if opts.KeepWork != "" {
		if err := os.MkdirAll(opts.KeepWork, 0o755); err != nil {
			return fail(pipeline.CouldNotRun, err.Error(), nil)
		}
	}
	if opts.HomeSeed != "" {
		if !opts.Host {
			return fail(pipeline.CouldNotRun, "a HOME seed is for rounds on this machine (--host); a round's container starts from its image", nil)
		}
		if st, err := os.Stat(opts.HomeSeed); err != nil || !st.IsDir() {
			return fail(pipeline.CouldNotRun, "the HOME seed "+opts.HomeSeed+" is not a folder", nil)
		}
	}

	logs := cmpOr(opts.Logs, opts.Results)
	// The first round's containers say what srb could add to their limits
	// (every round's are alike; a later one that hides less is an error).
	var (
		hard   *engine.Hardening
		hardMu sync.Mutex
	)
	meta := map[string]any{}
	if !opts.Host {
		meta["isolation"] = verification.IsolationContainer
		meta["where"] = "container"
		im := map[string]any{"stage": result.StageVerification, "ref": img.Tag, "id": img.Ref}
		if img.Digest != "" {
			im["digest"] = img.Digest
		}
		meta["image"] = im
	} else {
		meta["where"] = "host"
		meta["isolation"] = verification.HostIsolation()
		// Whether the task's limits bound each tree's session here.
		if how, why := hostLimits(); how != "" {
			meta["host_limits"] = how
		} else {
			meta["host_limits"] = "none: " + why
		}
		if opts.HomeSeed != "" {
			meta["home_seed"] = opts.HomeSeed
		}
		// The results and logs folders (transcripts with every
		// candidate's code) closed to the graded uids.
		notes, said, restore := closeToGraded(opts.Results, logs)
		defer restore()
		if len(notes) > 0 {
			meta["results_open"] = strings.Join(notes, "; ")
			fmt.Fprintf(logw, "srb: verification: %s\n", meta["results_open"])
		}
		for _, n := range said {
			fmt.Fprintf(logw, "srb: verification: %s\n", n)
		}
	}
	imgRef := ""
	if img != nil {
		imgRef = img.Ref
	}
	inputs, err := verification.Inputs(opts.Submission, origDir, t.Dir, imgRef, adjCfg, advCfg)
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	meta["inputs"] = inputs
	var kept map[string]verification.Kept
	if !opts.Fresh {
		kept = verification.KeptRounds(out, inputs)
		if len(kept) > 0 {
			ids := slices.Sorted(maps.Keys(kept))
			fmt.Fprintf(logw, "srb: verification: %d round(s) finished earlier on the same inputs are kept (%s); the others are played\n", len(kept), strings.Join(ids, ", "))
		}
	}
	// The task's warm command, once for the whole stage (never when every
	// round is kept): its HOME starts each tree's HOME for the tree's
	// warm-up run, a copy per tree and round.
	homeSeed := opts.HomeSeed
	if len(v.WarmCommand) > 0 && len(kept) < len(v.Adversaries) {
		seed, warmed, err := warmHome(ctx, opts, t, v, eng, ref)
		if seed != "" {
			defer os.RemoveAll(filepath.Dir(seed))
		}
		if err != nil {
			var we *verification.WarmError
			if errors.As(err, &we) {
				return fail(pipeline.BadTask, err.Error(), map[string]any{"config_error": true})
			}
			return fail(pipeline.CouldNotRun, err.Error(), nil)
		}
		homeSeed = seed
		meta["warm_home"] = warmed.Map(v.WarmCommand)
		fmt.Fprintf(logw, "srb: verification: warm_command left %d file(s), %d byte(s) in HOME in %.1fs; each tree's warm-up run starts from them\n",
			warmed.Files, warmed.Bytes, warmed.Duration.Seconds())
	}
	st, err := verification.Run(ctx, verification.Config{
		Progress:             logw,
		Task:                 t.ID,
		Prompt:               string(tmpl),
		Scope:                v.Scope,
		Adversaries:          v.Adversaries,
		Reruns:               v.Reruns,
		RequireDeterministic: v.RequireDeterministic,
		AllowedCommands:      v.AllowedCommands,
		RunTimeout:           time.Duration(v.RunTimeoutSec) * time.Second,
		NewSandbox: func(ctx context.Context, adversary string) (verification.Sandbox, error) {
			cfg := verification.ContainerConfig{
				Engine:     eng,
				Image:      ref,
				Labels:     map[string]string{"srb.task": t.ID, "srb.stage": result.StageVerification, "srb.round": adversary},
				Original:   origDir,
				Submission: opts.Submission,
				Command:    v.CandidateCommand,
				Paths:      []string{v.Assets},
				Timeout:    time.Duration(v.CandidateTimeoutSec) * time.Second,
				// The warm-up builds the tree: its own, wider bound.
				WarmUpTimeout: time.Duration(v.WarmUpTimeoutSec) * time.Second,
				FaultCodes:    v.FaultExitCodes,
				Network:       v.NetworkAllowed,
				Pids:          t.Limits.Pids,
				Memory:        t.Limits.Memory,
				Disk:          t.Limits.Disk,
				CPUs:          t.Limits.CPUs,
				Work:          opts.KeepWork,
				Keep:          opts.KeepWork != "",
				HomeSeed:      homeSeed,
			}
			if opts.Host {
				cfg.ToolEnv = hostToolEnv
			}
			// Every candidate run of a side in a fresh sandbox: in the
			// images a new container (a container's namespaces keep the
			// kernel state of earlier execs), with --host a new
			// engine.Local session, so a new uid: a uid's user keyring
			// (@u) outlives every process, reap and clearing of its
			// session, and a program counting its runs there hid its
			// defect in the reruns (hide-in-keyring).
			cfg.FreshPerRun = true
			c, err := verification.NewContainer(ctx, cfg)
			if err == nil && !opts.Host {
				// The first round's hardening is the metadata's; a later
				// round's containers must hide other uids' processes
				// where it did (as each round's own do:
				// verification.Container.sameHardening).
				h := c.Hardening()
				hardMu.Lock()
				if hard == nil {
					hard = h
				} else if h.HidesLessThan(*hard) {
					err = fmt.Errorf("sandbox: a round's containers show every process to every uid, unlike the first round's: %s", h.ProcHidden)
				}
				hardMu.Unlock()
				if err != nil {
					c.Close()
					return nil, err
				}
			}
			return c, err
		},
		NewDriver: func(a verification.Adversary) (models.Driver, error) {
			return models.New(advCfg[a.ID], models.WithEnv(lookup), models.WithLog(logw, "verification: round "+a.ID))
		},
		NewAdjudicator: func() (models.Driver, error) {
			return models.New(adjCfg, models.WithEnv(lookup), models.WithLog(logw, "verification: adjudicator"))
		},
		LogDir:   filepath.Join(logs, result.StageVerification),
		Kept:     kept,
		Metadata: meta,
		// Each finished round is on disk at once (atomically), so a
		// stage that is killed keeps what it finished.
		Checkpoint: func(partial *result.Stage) error { return partial.Write(out) },
		Budget:     time.Duration(t.VerificationTimeout) * time.Second,
		Now:        now,
	})
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	if h := hard; !opts.Host && h != nil {
		// What srb could add to the containers' limits from this machine
		// (engine.Hardening): "yes", or "no: " and why.
		yes := func(why string) string {
			if why == "" {
				return "yes"
			}
			return "no: " + why
		}
		if st.Metadata == nil {
			st.Metadata = map[string]any{}
		}
		st.Metadata["container_limits"] = map[string]any{"oom_guard": yes(h.OOMGuard), "tcp_limit": yes(h.TCPLimit), "proc_hidden": yes(h.ProcHidden)}
		if h.ProcHidden != "" {
			st.Note("the trees' containers' /proc showed every process to every uid (" + h.ProcHidden + "): a program the launcher ran could read the candidate's command lines")
		}
		if h.TCPLimit != "" {
			st.Note("the trees' containers' TCP buffers were not bounded by the task's limits.memory (" + h.TCPLimit + ")")
		}
	}
	if opts.Host {
		if how, why := hostLimits(); how == "" {
			st.Note("--host did not bound the trees' runs by the task's limits.memory and limits.pids (" + why + "): a run could take this machine's memory")
		}
		if verification.HostIsolation() != verification.IsolationUser {
			st.Note("srb is not root, so --host ran both trees' candidates as srb's own user: a candidate on one tree could reach the other tree's folders and srb's files (run as root, or in the verification image, to keep the trees apart)")
			if _, ok := meta["warm_home"]; ok && !v.NetworkAllowed {
				st.Note("srb is not root, so --host ran the warm command as srb's own user without a network namespace of its own: the network was not denied to it")
			}
		}
	}
	if err := st.Write(out); err != nil {
		return couldNotRun(err)
	}
	for _, line := range verification.Lines(st) {
		fmt.Fprintln(outw, line)
	}
	if st.Status != result.StatusOK {
		return couldNotRun(errors.New("verification: no round completed; re-run the stage (see the transcripts)"))
	}
	if n, _ := st.Metadata["errored"].(int); n > 0 {
		// A round that did not finish (the stage's clock, an engine that
		// failed, an adjudicator out of reach) is a fault of the grader:
		// the verdict is invalid, never a survival or a break.
		return couldNotRun(fmt.Errorf("verification: %d of %d round(s) did not complete; re-run the stage", n, len(st.Checks)))
	}
	return nil
}

// checkImageCommand is the part of the launch check (HARNESS.md §4.3) on
// the candidate command cmd that can be made before the task's
// verification image runs: there is a command, and problem (the task's
// rule on paths under its assets, when given) finds nothing wrong with
// any argument. Without it a mistyped path there would fail every round
// in turn, as rounds that could not start, instead of the task's
// configuration once. Other paths are checked in each round's container
// (verification.NewContainer).
func checkImageCommand(cmd []string, problem func(string) string) error {
	if len(cmd) == 0 {
		return errors.New("sandbox: no candidate command")
	}
	if problem == nil {
		return nil
	}
	for _, a := range cmd {
		if msg := problem(a); msg != "" {
			return errors.New("sandbox: " + msg)
		}
	}
	return nil
}

// taskScript resolves a scripted position's relative options.script
// against the task folder taskDir when it does not name a file from here.
func taskScript(taskDir string, c *models.Config) {
	if c.Driver != models.DriverScripted {
		return
	}
	if s, ok := c.Options["script"].(string); ok && s != "" && !filepath.IsAbs(s) {
		if _, err := os.Stat(s); err != nil {
			c.Options = copyOptions(c.Options)
			c.Options["script"] = filepath.Join(taskDir, s)
		}
	}
}

// hostToolEnv is what the run tool's commands read PATH and HOME from on
// this machine: this process's PATH (the host's toolchains), and HOME a
// folder of each view's own (verification.ContainerConfig.ToolEnv).
func hostToolEnv(name string) string {
	if name == "HOME" {
		return ""
	}
	return os.Getenv(name)
}

// hostLimits is [engine.Local.CgroupLimits] of stage 3's --host backend,
// read once per process (it reads this process's cgroups).
var hostLimits = sync.OnceValues((&engine.Local{}).CgroupLimits)

// HostVerificationImage is the reference [HostVerification]'s runner
// knows the task's verification image by on this machine.
const HostVerificationImage = "srb-host/verification"

// HostVerification is the execution backend of stage 3 with --host
// (engine.Local): sessions on this machine, where [HostVerificationImage]
// stands for the task's files (the folder assets) at their image path
// assetsPath, and the commands' environment is
// [verification.HostCandidateEnv].
func HostVerification(assetsPath, assets string) *engine.Local {
	return &engine.Local{Env: verification.HostCandidateEnv(),
		Images: map[string][]engine.Copy{HostVerificationImage: {{HostPath: assets, ContainerPath: assetsPath}}}}
}

// warmHome runs the task's warm command once in a session of image ref
// on eng (a container of the verification image, or with --host a
// session on this machine, [HostVerification]) and returns the seed
// folder, inside a temporary folder of the grader's own that the caller
// removes (filepath.Dir of it). With a HOME seed of srb's own
// (opts.HomeSeed, --host only), the command's HOME starts from it.
func warmHome(ctx context.Context, opts VerificationOptions, t *Task, v VerificationSpec, eng engine.Runner, ref string) (string, *verification.Warmed, error) {
	dir, err := os.MkdirTemp("", "srb-warm-home-")
	if err != nil {
		return "", nil, fmt.Errorf("warm: %w", err)
	}
	seed := filepath.Join(dir, "seed")
	cfg := verification.WarmConfig{Command: v.WarmCommand, Paths: []string{v.Assets}, Seed: seed,
		Timeout: time.Duration(v.WarmTimeoutSec) * time.Second, Network: v.NetworkAllowed, Start: opts.HomeSeed,
		Pids: t.Limits.Pids, Memory: t.Limits.Memory, Disk: t.Limits.Disk, CPUs: t.Limits.CPUs}
	w, err := verification.WarmHome(ctx, eng, ref,
		map[string]string{"srb.task": t.ID, "srb.stage": result.StageVerification}, cfg)
	return seed, w, err
}

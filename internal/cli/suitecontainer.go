package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Paths inside a stage container running a behavioural suite. The task's
// assets (modules/, data/, truth/) are the image's own, at
// /tests/<stage> (internal/image), and the helper is image.HelperPath.
const (
	ctrRepo     = "/srb/submission"
	ctrOriginal = "/srb/original"
	ctrWork     = "/srb/work"
	ctrResults  = "/srb/results"
	ctrSpec     = "/srb/suite.json"
	ctrTruth    = "/srb/truth"
)

// ctrTaskDir is where stage's image holds the task's assets.
func ctrTaskDir(stage string) string { return "/tests/" + stage }

// containerSuite is one run of a behavioural suite inside a container of
// a stage image: the tree under test copied in (at ctrRepo), State A
// copied in read-only (ctrOriginal), no network, the image's helper
// running `srb-helper suite` over the task's declaration, and the stage
// result — rewritten inside after every module — copied out whatever
// happened to the container. The spec names this srb's fingerprint as the
// orchestrator, so the helper stamps the result for this srb build
// (result.Stamp) and the report does not count the helper's executable as
// another grader; srb never re-stamps the result it copies out.
type containerSuite struct {
	Engine engine.Runner
	Image  *stageImage
	// Decl is the host declaration; its TaskDir is replaced by the
	// image's /tests/<stage>.
	Decl *behavioural.Declaration
	// Mode is behavioural.ModeCheck, ModeRecord or ModeIdentity.
	Mode string
	// Repo and Original are host folders: the tree under test and State
	// A ("" for none).
	Repo, Original string
	// Truth, when set, is a host folder of truth files copied in and used
	// instead of the image's truth/ (freeze's identity run).
	Truth string
	// Imports are copied in before the container starts (freeze: State
	// A's ledger, built in the verification image).
	Imports []engine.Copy
	// Budget is the stage's clock, given to the helper; the container
	// gets Budget plus a minute before it is treated as hung.
	Budget time.Duration
	// Result is the host path of the stage result (behavioural.json).
	Result string
	// Modules, when set, is a host folder that receives each module's
	// result.json and stdout.log (<Modules>/<module id>/).
	Modules string
	// Work, when set, is a host folder that receives the whole work
	// folder (--keep-work, and freeze's record run).
	Work string
	// Labels label the container.
	Labels map[string]string
	// Limits bound the container; zero is engine.DefaultLimits.
	Limits engine.Limits
	// Log reports progress; nil is silent.
	Log func(format string, args ...any)
	// Started, when set, is called with the session once the container
	// runs (tests kill it mid-suite).
	Started func(*engine.Session)
}

// errContainerFault is wrapped when the stage's container did not run the
// suite to its end (killed, crashed, hung): the stage result it left is
// kept, with status error.
var errContainerFault = errors.New("the stage's container did not finish the suite")

func (c *containerSuite) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

// run runs the suite and returns the stage result it left, with status
// error and the reason in metadata.error when the container did not finish
// (the error then wraps errContainerFault), or nil and an error when
// nothing could be read back.
func (c *containerSuite) run(ctx context.Context) (*result.Stage, error) {
	stage := c.Image.Stage
	decl := *c.Decl
	decl.TaskDir = ctrTaskDir(stage)
	truthDir := filepath.Join(decl.TaskDir, behavioural.TruthDir)
	if c.Truth != "" {
		truthDir = ctrTruth
	}
	spec := kinds.SuiteSpec{Declaration: &decl, Mode: c.Mode, Repo: ctrRepo, Work: ctrWork, TruthDir: truthDir,
		Result: ctrResults + "/" + result.StageBehavioural + ".json", TimeoutSec: int(c.Budget.Seconds()), Helper: []string{image.HelperPath},
		Orchestrator: result.Fingerprint()}
	if c.Mode == behavioural.ModeRecord {
		spec.TruthDir = ""
	}
	if c.Original != "" {
		spec.Original = ctrOriginal
	}
	tmp, err := os.MkdirTemp("", "srb-suite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	specPath := filepath.Join(tmp, "suite.json")
	if err := behavioural.WriteJSON(specPath, spec); err != nil {
		return nil, err
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		return nil, err
	}
	copies := []engine.Copy{
		{HostPath: specPath, ContainerPath: ctrSpec},
		{HostPath: c.Repo, ContainerPath: ctrRepo},
		{HostPath: empty, ContainerPath: ctrResults},
		{HostPath: empty, ContainerPath: ctrWork},
	}
	var ro []string
	if c.Original != "" {
		copies = append(copies, engine.Copy{HostPath: c.Original, ContainerPath: ctrOriginal})
		ro = append(ro, ctrOriginal)
	}
	if c.Truth != "" {
		copies = append(copies, engine.Copy{HostPath: c.Truth, ContainerPath: ctrTruth})
		ro = append(ro, ctrTruth)
	}
	copies = append(copies, c.Imports...)
	labels := map[string]string{"org.swe-refactor-bench.stage": stage, "org.swe-refactor-bench.task.id": c.Decl.Task,
		"org.swe-refactor-bench.mode": c.Mode}
	for k, v := range c.Labels {
		labels[k] = v
	}
	c.logf("%s: starting a container of %s (%.19s), no network", c.Mode, c.Image.Tag, c.Image.Ref)
	limits := c.Limits
	if limits == (engine.Limits{}) {
		limits = engine.DefaultLimits
	}
	// CAP_SYS_PTRACE for the container's root: the helper's process init
	// traces each build (ladder/proc, Spec.TraceExecs) and reads
	// /proc/<pid>/exe of the submission's processes, which run as another
	// user. It widens nothing the submission can do: its processes drop to
	// that user (no capabilities left after setuid and exec), and
	// no-new-privileges keeps any setuid or file-capability program in the
	// image from giving one back.
	es := engine.Spec{Image: c.Image.Ref, Copies: copies, ReadOnly: ro, Labels: labels, WorkDir: ctrWork,
		CapAdd: []string{"SYS_PTRACE"}, NoNewPrivileges: true}
	limits.Apply(&es)
	s, err := c.Engine.Start(ctx, es)
	if err != nil {
		return nil, fmt.Errorf("%s image: %w", stage, err)
	}
	defer s.Close(ctx)
	if c.Started != nil {
		c.Started(s)
	}
	res, xerr := s.Exec(ctx, engine.ExecSpec{Argv: []string{image.HelperPath, "suite"}, Env: []string{kinds.EnvSuiteSpec + "=" + ctrSpec},
		Timeout: c.Budget + time.Minute, MaxOutput: 1 << 20})
	// Whatever happened, what the suite wrote comes out before Close.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if res != nil {
		for _, line := range strings.Split(strings.TrimSpace(string(res.Stderr)), "\n") {
			if line != "" {
				c.logf("%s", strings.TrimPrefix(line, "srb-helper: "))
			}
		}
	}
	copied := filepath.Join(tmp, "results")
	cerr := s.CopyOut(octx, ctrResults, copied)
	c.copyModules(octx, s, tmp)
	st, rerr := result.ReadStage(filepath.Join(copied, result.StageBehavioural+".json"))
	var fault string
	switch {
	case xerr != nil:
		fault = fmt.Sprintf("the suite was stopped: %v", xerr)
	case res.TimedOut:
		fault = fmt.Sprintf("the helper did not finish within the stage's %s budget and a minute; it was killed", c.Budget)
	case res.ExitCode == 0:
	case res.ExitCode == 70:
		fault = "the helper could not run the suite (exit 70)"
	case res.ExitCode == 126 || res.ExitCode == 127:
		fault = fmt.Sprintf("the image cannot run its helper %s (exit %d)", image.HelperPath, res.ExitCode)
	default:
		fault = fmt.Sprintf("the container ended mid-suite (exit %d: killed, or the helper crashed)", res.ExitCode)
	}
	if rerr != nil {
		why := fault
		if why == "" {
			why = "the helper exited 0"
		}
		if cerr != nil {
			rerr = cerr
		}
		return nil, fmt.Errorf("%w: %s, and no stage result could be read from it: %v", errContainerFault, why, rerr)
	}
	st.Metadata["where"] = "container"
	recordLimits(octx, st, s, limits)
	st.Metadata["image"] = map[string]any{"stage": stage, "tag": c.Image.Tag, "id": c.Image.Ref, "digest": c.Image.Digest}
	st.Metadata["repo"] = c.Repo
	if c.Modules != "" {
		for i := range st.Units {
			if p := filepath.Join(c.Modules, st.Units[i].ID, "stdout.log"); fileExists(p) {
				st.Units[i].Metadata["log"] = p
			}
		}
	}
	if fault != "" {
		done, unreached := 0, 0
		for _, u := range st.Units {
			if u.Status == result.UnitUnreached {
				unreached++
			} else {
				done++
			}
		}
		reason := fmt.Sprintf("%s: the %d module(s) that finished are kept, %d are unreached", fault, done, unreached)
		if st.Status == result.StatusOK {
			st.Status = result.StatusError
		}
		st.Metadata["error"] = reason
		st.Note(reason)
	}
	if err := st.Write(c.Result); err != nil {
		return st, err
	}
	if fault != "" {
		return st, fmt.Errorf("%w: %s", errContainerFault, fault)
	}
	return st, nil
}

// copyModules copies each module's result.json and stdout.log out to
// c.Modules, and the whole work folder to c.Work, when asked.
func (c *containerSuite) copyModules(ctx context.Context, s *engine.Session, tmp string) {
	if c.Work != "" {
		if err := s.CopyOut(ctx, ctrWork, c.Work); err != nil {
			c.logf("copying the work folder out: %v", err)
		}
	}
	if c.Modules == "" {
		return
	}
	for _, m := range c.Decl.Modules {
		for _, f := range []string{"result.json", "stdout.log"} {
			dst := filepath.Join(c.Modules, m.ID, f)
			if err := s.CopyOut(ctx, ctrWork+"/"+m.ID+"/"+f, dst); err != nil && !errors.Is(err, engine.ErrNoPath) {
				c.logf("module %s: copying %s out: %v", m.ID, f, err)
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

package behavioural

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// KindProgram is the module kind the runner runs itself: a task's own
// program writing the module-result contract. Every other kind is run by
// the helper from a [Plan].
const KindProgram = "program"

// Declaration is a task's stage-2 declaration as the runner needs it
// (schema/task.cue #Behavioural, with State B's build commands). It
// mirrors the task's CUE so this package needs no task loader.
type Declaration struct {
	Task string `json:"task"`
	// TaskDir is the task folder: $SRB_SUITE_DIR, the root of data/ and
	// of module programs, and the home of truth/.
	TaskDir string `json:"task_dir"`
	// StateA is State A's pinned digest (provenance).
	StateA         string                   `json:"state_a_sha256,omitempty"`
	Env            map[string]string        `json:"env,omitempty"`
	Configurations map[string]Configuration `json:"configurations"`
	// StateB are the commands that build a submission (state_b.build).
	StateB [][]string `json:"state_b_build"`
	// StateBDetect is state_b.detect: a path relative to the tree under
	// test that selects StateB when present and the configuration's
	// Original when absent (check mode only); "" always selects StateB.
	StateBDetect string           `json:"state_b_detect,omitempty"`
	Modules      []DeclaredModule `json:"modules"`
	// Jail, when set, isolates the tree under test's processes from the
	// grader; every plan carries it. nil runs them as the grader's user.
	Jail *Jail `json:"jail,omitempty"`
}

// Configuration is one named build configuration as declared
// (#Configuration): Original builds State A with the old toolchain;
// a submission is built with State B's commands, Args appended to the
// last one; Outputs are kept by the ledger; Watch are the tools whose
// invocations are recorded.
type Configuration struct {
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Original [][]string        `json:"original"`
	Outputs  []string          `json:"outputs,omitempty"`
	Watch    []string          `json:"watch,omitempty"`
}

// DeclaredModule is one module as declared (#Module). Timeout travels in
// JSON as nanoseconds.
type DeclaredModule struct {
	ID      string          `json:"id"`
	Title   string          `json:"title,omitempty"`
	About   string          `json:"about"`
	Kind    string          `json:"kind"`
	Weight  float64         `json:"weight"`
	Timeout time.Duration   `json:"timeout_ns"`
	Params  json.RawMessage `json:"params"`
}

// Resolve returns the configurations as built for mode: State A's
// commands in record and identity, State B's in check — and, in check
// with StateBDetect set, State A's as well, for the build module to pick
// by the tree it is given.
func (d *Declaration) Resolve(mode string) map[string]Build {
	out := map[string]Build{}
	for name, c := range d.Configurations {
		b := Build{Env: c.Env, Outputs: c.Outputs, Watch: c.Watch}
		if mode == ModeCheck {
			for i, cmd := range d.StateB {
				cmd = slices.Clone(cmd)
				if i == len(d.StateB)-1 {
					cmd = append(cmd, c.Args...)
				}
				b.Commands = append(b.Commands, cmd)
			}
			b.Source = SourceStateB
			if d.StateBDetect != "" {
				b.Detect, b.Original = d.StateBDetect, c.Original
			}
		} else {
			b.Source = SourceOriginal
			b.Commands = c.Original
		}
		out[name] = b
	}
	return out
}

// Suite turns the declaration into a runnable suite for mode: program
// modules run their own command in their folder; every other module runs
// helper ("run", <work>/<id>/plan.json), with the plan written now.
// truthDir is where identity and check modes read truth files (the
// task's truth/ unless freezing).
func (d *Declaration) Suite(mode, work, truthDir string, helper []string) (*Suite, error) {
	if len(helper) == 0 {
		return nil, fmt.Errorf("behavioural: no helper to run declarative modules with")
	}
	s := &Suite{Task: d.Task, Dir: d.TaskDir, Env: d.Env}
	builds := d.Resolve(mode)
	for _, dm := range d.Modules {
		m := Module{ID: dm.ID, Title: dm.Title, Weight: dm.Weight, Timeout: dm.Timeout, About: dm.About,
			Metadata: map[string]any{"kind": dm.Kind}}
		if dm.Kind == KindProgram {
			var p struct {
				Dir     string            `json:"dir"`
				Command []string          `json:"command"`
				Env     map[string]string `json:"env"`
			}
			if err := json.Unmarshal(dm.Params, &p); err != nil {
				return nil, fmt.Errorf("behavioural: module %s: %w", dm.ID, err)
			}
			m.Dir, m.Command, m.Env = filepath.Join(d.TaskDir, p.Dir), p.Command, p.Env
			s.Modules = append(s.Modules, m)
			continue
		}
		mw := ModuleWork(work, dm.ID)
		if err := os.MkdirAll(mw, 0o700); err != nil { // the grader's: plan, result, log
			return nil, fmt.Errorf("behavioural: %w", err)
		}
		plan := Plan{
			Task: d.Task, Module: dm.ID, Kind: dm.Kind, Mode: mode, Params: dm.Params, TaskDir: d.TaskDir,
			Observations: filepath.Join(mw, "observations.json"), Configurations: builds, Helper: helper,
			Env: d.Env, Jail: d.Jail,
		}
		if mode != ModeRecord {
			plan.Truth = filepath.Join(truthDir, dm.ID+".json")
		}
		planPath := filepath.Join(mw, "plan.json")
		if err := WriteJSON(planPath, plan); err != nil {
			return nil, fmt.Errorf("behavioural: %w", err)
		}
		m.Dir = d.TaskDir
		// The plan's path travels in the helper's environment, which only
		// the grader can read, never in its argument list, which any
		// process can (/proc/PID/cmdline).
		m.Command = append(slices.Clone(helper), "run")
		m.Env = map[string]string{EnvPlan: planPath}
		s.Modules = append(s.Modules, m)
	}
	return s, nil
}

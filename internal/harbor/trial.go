package harbor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The trial folder srb trial writes, in Harbor's layout: what Harbor's
// viewers and srb campaign read.
const (
	// TrialAgentDir holds the agent's log (AgentLogFile) and trajectory
	// (TrajectoryFile).
	TrialAgentDir = "agent"
	// TrialVerifierDir holds the ladder's results, reward.json last.
	TrialVerifierDir = "verifier"
	// TrialArtifactsDir holds the collected workspace (ArtifactsRepo).
	TrialArtifactsDir = "artifacts"
	// ArtifactsRepo is the collected workspace under TrialArtifactsDir.
	ArtifactsRepo = "repo"
	// TrialResultFile is the trial's result.
	TrialResultFile = "result.json"
	// AgentLogFile is everything the agent printed, in order.
	AgentLogFile = "agent.log"
	// TrajectoryFile is the agent's steps (Trajectory).
	TrajectoryFile = "trajectory.json"
)

// Timing is one phase's start and end (UTC) and its length in seconds.
type Timing struct {
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Seconds    float64   `json:"seconds"`
}

// NewTiming is the phase from start to end.
func NewTiming(start, end time.Time) *Timing {
	return &Timing{StartedAt: start.UTC(), FinishedAt: end.UTC(), Seconds: end.Sub(start).Seconds()}
}

// AgentInfo names the agent a trial ran: "nop", "oracle", "scripted" or
// "command", and what it ran (the fixture, script or program's base name).
type AgentInfo struct {
	Name string `json:"name"`
	What string `json:"what,omitempty"`
}

// AgentResult is how the agent phase ended. ExitCode is the last
// command's status (nil when none ran or it never settled); TimedOut says
// the budget (BudgetSec seconds) ended the phase, and the workspace as it
// stood then was graded.
type AgentResult struct {
	ExitCode  *int `json:"exit_code"`
	TimedOut  bool `json:"timed_out"`
	BudgetSec int  `json:"budget_sec"`
	Steps     int  `json:"steps"`
	// CollectedFiles counts the files and links collected from the
	// workspace; Excluded the entries the artifact excludes left out.
	CollectedFiles int64 `json:"collected_files"`
	Excluded       int   `json:"excluded"`
}

// VerifierResult is the ladder's verdict as reward.json's numbers.
type VerifierResult struct {
	Rewards map[string]float64 `json:"rewards"`
}

// ExceptionInfo is why a trial could not be completed: a harness fault,
// never the agent's result.
type ExceptionInfo struct {
	Type    string `json:"exception_type"`
	Message string `json:"exception_message"`
}

// TrialResult is result.json: the trial's phases with their timings, the
// agent's outcome and the verifier's rewards. Notes say in words what a
// reader must know (a budget overrun, a missing reward).
type TrialResult struct {
	TaskName         string          `json:"task_name"`
	TrialName        string          `json:"trial_name"`
	AgentInfo        AgentInfo       `json:"agent_info"`
	AgentResult      *AgentResult    `json:"agent_result"`
	VerifierResult   *VerifierResult `json:"verifier_result"`
	ExceptionInfo    *ExceptionInfo  `json:"exception_info"`
	StartedAt        time.Time       `json:"started_at"`
	FinishedAt       time.Time       `json:"finished_at"`
	EnvironmentSetup *Timing         `json:"environment_setup"`
	AgentSetup       *Timing         `json:"agent_setup"`
	AgentExecution   *Timing         `json:"agent_execution"`
	Verifier         *Timing         `json:"verifier"`
	Notes            []string        `json:"notes,omitempty"`
}

// Write writes r as dir/result.json (through a temporary file and a
// rename, so a reader never sees half of it).
func (r *TrialResult) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, TrialResultFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, TrialResultFile))
}

// ReadTrialResult reads dir/result.json.
func ReadTrialResult(dir string) (*TrialResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, TrialResultFile))
	if err != nil {
		return nil, err
	}
	var r TrialResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, TrialResultFile), err)
	}
	return &r, nil
}

// Step is one step of an agent's trajectory: what it did (a command's
// argv, a file written or deleted), when, for how long, and how it ended.
type Step struct {
	Index     int       `json:"index"`
	Kind      string    `json:"kind"` // "run", "write", "delete"
	Argv      []string  `json:"argv,omitempty"`
	Path      string    `json:"path,omitempty"`
	StartedAt time.Time `json:"started_at"`
	Seconds   float64   `json:"seconds"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	TimedOut  bool      `json:"timed_out,omitempty"`
	// Output is the step's standard output and error, bounded.
	Output string `json:"output,omitempty"`
}

// Trajectory is agent/trajectory.json.
type Trajectory struct {
	Schema string `json:"schema"`
	Agent  string `json:"agent"`
	Steps  []Step `json:"steps"`
}

// TrajectorySchema names the trajectory's format.
const TrajectorySchema = "srb.trajectory/1"

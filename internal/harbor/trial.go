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
	// workspace; Excluded the entries the artifact excludes left out (a
	// folder once, not what it holds).
	CollectedFiles int64 `json:"collected_files"`
	Excluded       int   `json:"excluded"`
	// Workspace is how the copy of the workspace out of the container
	// went: what it took, what it left, and the bound it passed.
	Workspace *WorkspaceCopy `json:"workspace,omitempty"`
}

// WorkspaceCopy is the bounded copy of the agent's workspace out of its
// container (srb trial's step 4; the bounds in docs/HARBOR.md).
type WorkspaceCopy struct {
	// Bounds are the copy's bounds: max_bytes, max_stream_bytes,
	// max_entries, max_depth, max_path_bytes.
	Bounds map[string]int64 `json:"bounds"`
	// Entries counts the entries read; Files, Links and Dirs what was
	// written; Bytes the bytes of files written.
	Entries int   `json:"entries"`
	Files   int   `json:"files"`
	Links   int   `json:"links"`
	Dirs    int   `json:"dirs"`
	Bytes   int64 `json:"bytes"`
	// Special counts FIFOs, devices and sockets (never copied);
	// SpecialPaths lists the first 100.
	Special      int      `json:"special"`
	SpecialPaths []string `json:"special_paths,omitempty"`
	// Unlinked are hard links whose target artifacts.exclude left out:
	// not collected.
	Unlinked []string `json:"unlinked,omitempty"`
	// OverBound, when set, says which bound the workspace passed and at
	// which path: the copy stopped there, nothing was graded, and the
	// verdict is the agent's zero (valid).
	OverBound string `json:"over_bound,omitempty"`
	// OverBoundName is the bound passed: "bytes", "stream bytes",
	// "entries", "depth" or "path bytes".
	OverBoundName string `json:"over_bound_name,omitempty"`
}

// AgentNetwork is the network the agent's container had: Mode "none" (a
// loopback interface only), or "gateway": still only loopback, where srb
// listened on Listen and carried each connection to Target (Gateway, the
// URL given; AgentURL, the URL the agent was told in SRB_GATEWAY_URL),
// with what it carried.
type AgentNetwork struct {
	Mode     string `json:"mode"`
	Gateway  string `json:"gateway,omitempty"`
	AgentURL string `json:"agent_url,omitempty"`
	Listen   string `json:"listen,omitempty"`
	// ListenIPv6 is the IPv6 loopback address srb also listened on
	// ("[::1]:port"), when the container's namespace had one; the agent's
	// URL names Listen, the IPv4 one.
	ListenIPv6 string `json:"listen_ipv6,omitempty"`
	Target     string `json:"target,omitempty"`
	// HostsEntry is the line added to the container's /etc/hosts
	// ("name:127.0.0.1"), when the gateway is named by a host name.
	HostsEntry       string `json:"hosts_entry,omitempty"`
	Connections      int64  `json:"connections"`
	DialFailures     int64  `json:"dial_failures"`
	Rejected         int64  `json:"rejected"`
	BytesToGateway   int64  `json:"bytes_to_gateway"`
	BytesFromGateway int64  `json:"bytes_from_gateway"`
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
	AgentNetwork     *AgentNetwork   `json:"agent_network"`
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

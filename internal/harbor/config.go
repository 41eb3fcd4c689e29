// Package harbor turns an srb task into a Harbor task directory (srb
// export harbor) and reads and writes the parts of Harbor's trial layout
// srb trial produces. docs/HARBOR.md describes both.
//
// Every task.toml field is derived from the task's declaration
// ([Derive]); nothing is typed twice. The one set of values the
// declaration has no field for (the build timeouts of two images that are
// pulled by digest, not built) are constants of this package.
package harbor

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// SchemaVersion is the task.toml schema_version srb writes.
const SchemaVersion = "1.4"

// Paths inside the verifier image that tests/Dockerfile lays out and
// tests/test.sh reads.
const (
	// VerifierRoot holds srb's task folder (VerifierRoot/tasks/<id>) and
	// whatever a local State A source needs beside it.
	VerifierRoot = "/srb"
	// VerifierCache is the State A cache copied into the verifier image.
	VerifierCache = "/srb/cache"
	// VerifierBinary is srb's static binary in the verifier image.
	VerifierBinary = "/usr/local/bin/srb"
	// LogsVerifier is where Harbor mounts the trial's verifier folder and
	// reads reward.json from.
	LogsVerifier = "/logs/verifier"
	// DockerSocket is the engine's socket, mounted into the verifier
	// container so the ladder starts the stage images as siblings.
	DockerSocket = "/var/run/docker.sock"
)

// EnvironmentBuildTimeoutSec bounds building environment/: one FROM line
// of an image pinned by digest, so the time is the pull's. The task
// declaration has no field for it (srb build makes the image itself).
const EnvironmentBuildTimeoutSec = 1800

// VerifierBuildTimeoutSec bounds building tests/: a pull of the task's
// audit image by digest and three COPY steps.
const VerifierBuildTimeoutSec = 1800

// TaskConfig is one task.toml, in the field order Harbor documents. Field
// names are Harbor's; units are seconds and MiB (Harbor's "_mb").
type TaskConfig struct {
	SchemaVersion string         `toml:"schema_version" json:"schema_version"`
	Artifacts     []Artifact     `toml:"artifacts" json:"artifacts"`
	Task          TaskInfo       `toml:"task" json:"task"`
	Metadata      Metadata       `toml:"metadata" json:"metadata"`
	Agent         AgentPhase     `toml:"agent" json:"agent"`
	Environment   Environment    `toml:"environment" json:"environment"`
	Verifier      Verifier       `toml:"verifier" json:"verifier"`
	Solution      *SolutionTable `toml:"solution,omitempty" json:"solution,omitempty"`
}

// Artifact is one [[artifacts]] entry: Source (absolute) is collected from
// the agent's container, leaving out what Exclude matches.
type Artifact struct {
	Source  string   `toml:"source" json:"source"`
	Exclude []string `toml:"exclude" json:"exclude"`
}

// TaskInfo is [task].
type TaskInfo struct {
	Name        string   `toml:"name" json:"name"`
	Description string   `toml:"description" json:"description"`
	Keywords    []string `toml:"keywords" json:"keywords"`
}

// Metadata is [metadata]: where State A comes from and what it becomes.
type Metadata struct {
	Category        string `toml:"category" json:"category"`
	License         string `toml:"license" json:"license"` // SPDX, as NOTICE's entry
	Upstream        string `toml:"upstream" json:"upstream"`
	UpstreamVersion string `toml:"upstream_version" json:"upstream_version"`
	StateA          string `toml:"state_a" json:"state_a"`
	StateB          string `toml:"state_b" json:"state_b"`
	SRBTask         string `toml:"srb_task" json:"srb_task"`
	BudgetHours     int    `toml:"budget_hours" json:"budget_hours"`
}

// AgentPhase is [agent]: TimeoutSec is the task's budget in seconds.
type AgentPhase struct {
	Harness     string  `toml:"harness" json:"harness"`
	TimeoutSec  float64 `toml:"timeout_sec" json:"timeout_sec"`
	NetworkMode string  `toml:"network_mode" json:"network_mode"`
	User        string  `toml:"user" json:"user"`
}

// Environment is [environment], the agent's container. CPUs is whole
// CPUs, MemoryMB and StorageMB are MiB (0: not written, Harbor's default
// applies).
type Environment struct {
	NetworkMode     string  `toml:"network_mode" json:"network_mode"`
	BuildTimeoutSec float64 `toml:"build_timeout_sec" json:"build_timeout_sec"`
	CPUs            int64   `toml:"cpus,omitempty" json:"cpus,omitempty"`
	MemoryMB        int64   `toml:"memory_mb,omitempty" json:"memory_mb,omitempty"`
	StorageMB       int64   `toml:"storage_mb,omitempty" json:"storage_mb,omitempty"`
	Workdir         string  `toml:"workdir" json:"workdir"`
}

// Verifier is [verifier]: the separate verifier container that runs srb
// ladder. Env maps a variable to Harbor's "${NAME}" reference to the same
// variable of the host, so a value never lands in the task directory.
type Verifier struct {
	TimeoutSec      float64             `toml:"timeout_sec" json:"timeout_sec"`
	EnvironmentMode string              `toml:"environment_mode" json:"environment_mode"`
	User            string              `toml:"user" json:"user"`
	Environment     VerifierEnvironment `toml:"environment" json:"environment"`
	Env             map[string]string   `toml:"env,omitempty" json:"env,omitempty"`
}

// VerifierEnvironment is [verifier.environment].
type VerifierEnvironment struct {
	NetworkMode     string  `toml:"network_mode" json:"network_mode"`
	BuildTimeoutSec float64 `toml:"build_timeout_sec" json:"build_timeout_sec"`
}

// SolutionTable is [solution]; srb writes it empty when it writes a
// solution (solve.sh needs nothing from the host).
type SolutionTable struct {
	Env map[string]string `toml:"env,omitempty" json:"env,omitempty"`
}

// networkModes maps the declaration's agent.network to Harbor's mode.
var networkModes = map[string]string{"none": "no-network"}

// Derive returns t's task.toml. passEnv are further variable names (a
// driver's SRB_DRIVER, a base URL) passed to the verifier by name; the
// credential variables of every model position t declares are always
// passed. An agent.network Harbor has no mode for is an error.
func Derive(t *task.Task, passEnv []string) (*TaskConfig, error) {
	mode, ok := networkModes[t.Agent.Network]
	if !ok {
		return nil, fmt.Errorf("%s: agent.network %q has no Harbor network mode", t.File, t.Agent.Network)
	}
	c := &TaskConfig{
		SchemaVersion: SchemaVersion,
		Artifacts:     []Artifact{{Source: t.Artifacts.Path, Exclude: append([]string{}, t.Artifacts.Exclude...)}},
		Task: TaskInfo{
			Name:        "swe-refactor-bench/" + t.ID,
			Description: fmt.Sprintf("%s: migrate %s %s from %s to %s", t.Title, t.StateA.Project, t.StateA.Version, t.StateA.Stack, t.StateB.Stack),
			Keywords:    keywords(t),
		},
		Metadata: Metadata{
			Category:        t.Class,
			License:         t.StateA.License,
			Upstream:        t.StateA.Upstream,
			UpstreamVersion: t.StateA.Version,
			StateA:          t.StateA.Stack,
			StateB:          t.StateB.Stack,
			SRBTask:         t.ID,
			BudgetHours:     t.BudgetHours,
		},
		Agent: AgentPhase{Harness: t.Agent.Harness, TimeoutSec: float64(t.Agent.BudgetSec), NetworkMode: mode, User: t.Agent.User},
		Environment: Environment{
			NetworkMode:     mode,
			BuildTimeoutSec: EnvironmentBuildTimeoutSec,
			CPUs:            t.Limits.CPUs,
			MemoryMB:        t.Limits.MemoryMiB,
			StorageMB:       t.Limits.DiskMiB,
			Workdir:         t.Artifacts.Path,
		},
		Verifier: Verifier{
			TimeoutSec:      float64(t.Timeouts.Verifier),
			EnvironmentMode: "separate",
			User:            "root",
			Environment:     VerifierEnvironment{NetworkMode: verifierNetwork(t), BuildTimeoutSec: VerifierBuildTimeoutSec},
			Env:             map[string]string{},
		},
	}
	for _, name := range append(CredentialNames(t), passEnv...) {
		if !envName(name) {
			return nil, fmt.Errorf("--pass-env %q: not a variable name", name)
		}
		c.Verifier.Env[name] = "${" + name + "}"
	}
	return c, nil
}

// keywords are the benchmark, the task's class, State A's project and
// State B's toolchains, without repeats.
func keywords(t *task.Task) []string {
	out := []string{"swe-refactor-bench", t.Class, strings.ToLower(t.StateA.Project)}
	tcs := make([]string, 0, len(t.StateB.Toolchains))
	for name := range t.StateB.Toolchains {
		tcs = append(tcs, name)
	}
	sort.Strings(tcs)
	for _, k := range tcs {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// positions are t's model positions: the audit, the adjudicator, each
// adversary.
func positions(t *task.Task) []task.Model {
	ps := []task.Model{t.Audit.Model, t.Verification.Adjudicator}
	for _, a := range t.Verification.Adversaries {
		ps = append(ps, a.Model)
	}
	return ps
}

// CredentialNames are, sorted and without repeats, the variable that
// holds each model position's credential (the first of
// models.CredentialVars: options.api_key_env, else the driver's own).
func CredentialNames(t *task.Task) []string {
	var out []string
	for _, p := range positions(t) {
		vars := models.CredentialVars(models.Config{Driver: p.Driver, Model: p.Model, Effort: p.Effort, Options: p.Options})
		if len(vars) > 0 && !slices.Contains(out, vars[0]) {
			out = append(out, vars[0])
		}
	}
	sort.Strings(out)
	return out
}

// verifierNetwork is "public" when a graded stage calls a model over the
// network (the stage containers themselves get no network from srb), else
// "no-network".
func verifierNetwork(t *task.Task) string {
	for _, p := range positions(t) {
		if p.Driver == models.DriverAnthropic || p.Driver == models.DriverOpenAI {
			return "public"
		}
	}
	return "no-network"
}

func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Marshal renders c as task.toml, headed by a comment saying where it came
// from.
func (c *TaskConfig) Marshal() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Written by srb export harbor from tasks/%s/task.cue: edit the task, not this file.\n\n", c.Metadata.SRBTask)
	enc := toml.NewEncoder(&b)
	enc.SetIndentTables(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

//go:embed testdata/task-toml.schema.json
var schemaJSON []byte

var compiled *jsonschema.Schema

func schema() (*jsonschema.Schema, error) {
	if compiled != nil {
		return compiled, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("harbor: the task.toml schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("task-toml.schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("task-toml.schema.json")
	if err != nil {
		return nil, fmt.Errorf("harbor: the task.toml schema: %w", err)
	}
	compiled = s
	return s, nil
}

// Check parses data as TOML and checks it against the task.toml schema.
// name is the file named in errors. It returns nil or one error listing
// every violation with its field path.
func Check(name string, data []byte) error {
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		var de *toml.DecodeError
		if ok := asDecodeError(err, &de); ok {
			row, col := de.Position()
			return fmt.Errorf("%s:%d:%d: %s", name, row, col, de.Error())
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	// Through JSON, so numbers are what the schema library expects.
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s, err := schema()
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s: does not match Harbor's task.toml schema %s: %v", name, SchemaVersion, err)
	}
	return nil
}

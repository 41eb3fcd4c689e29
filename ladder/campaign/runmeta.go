package campaign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// RunMetaFile is the file beside a submission (in the submitted folder's
// parent; for a fixture, in the fixture's folder) that says who made it.
const RunMetaFile = "run.json"

// RunMetaFlags are what the operator says about who made the submissions
// graded in one call (srb ladder's --run-* flags). A field set wins over
// the same field of run.json. Attempt is 0 when not given; Meta holds
// KEY=VALUE pairs.
type RunMetaFlags struct {
	Model         string
	Effort        string
	Agent         string
	AgentVersion  string
	Configuration string
	Attempt       int
	Meta          []string
}

// maxRunMetaBytes bounds run.json.
const maxRunMetaBytes = 64 << 10

// metaKey is the shape of an operator key: it must not shadow a field.
var metaKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// reservedRunKeys are run.json's own fields (never operator keys).
var reservedRunKeys = map[string]bool{"model": true, "effort": true, "agent": true, "agent_version": true,
	"configuration": true, "attempt": true, "task_class": true, "operator": true}

// Check reports the first malformed value, naming its --run-* flag: an
// attempt below 0, a Meta pair that is not KEY=VALUE with KEY shaped like
// an operator key, or a KEY that is one of run.json's own fields.
func (m RunMetaFlags) Check() error {
	if m.Attempt < 0 {
		return fmt.Errorf("--run-attempt %d: attempts count from 1", m.Attempt)
	}
	for _, kv := range m.Meta {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !metaKey.MatchString(k) {
			return fmt.Errorf("--run-meta %s: write KEY=VALUE, KEY a letter then letters, digits, _ . or - (at most 64)", kv)
		}
		if reservedRunKeys[k] {
			return fmt.Errorf("--run-meta %s: %s has a flag of its own (--run-%s)", kv, k, strings.ReplaceAll(k, "_", "-"))
		}
	}
	return nil
}

// RunMetaPath is where run.json lies for the submitted tree src (its
// parent folder) or, when fixtureDir is not "", a submission fixture (its
// own folder).
func RunMetaPath(src, fixtureDir string) string {
	if fixtureDir != "" {
		return filepath.Join(fixtureDir, RunMetaFile)
	}
	return filepath.Join(filepath.Dir(src), RunMetaFile)
}

// ResolveRunMeta reads path (absent is fine: nothing recorded), then lays
// the flags over it and records the task's declared class. It returns
// false when nothing at all is known about who made the submission
// besides the class. A run.json that is not one JSON object of the
// documented fields is an error naming the file, the line and the field.
func ResolveRunMeta(flags RunMetaFlags, path, taskClass string) (RunMeta, bool, error) {
	m := RunMeta{TaskClass: taskClass}
	// run.json is the operator's, outside the submitted tree: a link
	// (which could lead into the tree the agent wrote) or a file of
	// another kind is refused, and so is one too large to be metadata.
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return m, false, fmt.Errorf("%s: not a regular file (%s): run.json must be the operator's own file, never a link", path, st.Mode().Type())
		}
		if st.Size() > maxRunMetaBytes {
			return m, false, fmt.Errorf("%s: %d bytes, more than the %d run metadata may hold", path, st.Size(), maxRunMetaBytes)
		}
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return m, false, fmt.Errorf("%s: %w", path, err)
	default:
		if m, err = ParseRunMeta(path, data); err != nil {
			return m, false, err
		}
		m.TaskClass = taskClass
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&m.Model, flags.Model)
	set(&m.Effort, flags.Effort)
	set(&m.Agent, flags.Agent)
	set(&m.AgentVersion, flags.AgentVersion)
	set(&m.Configuration, flags.Configuration)
	if flags.Attempt > 0 {
		m.Attempt = flags.Attempt
	}
	for _, kv := range flags.Meta {
		k, v, _ := strings.Cut(kv, "=")
		if m.Operator == nil {
			m.Operator = map[string]string{}
		}
		m.Operator[k] = v
	}
	known := m.Model != "" || m.Effort != "" || m.Agent != "" || m.AgentVersion != "" || m.Configuration != "" ||
		m.Attempt > 0 || len(m.Operator) > 0
	return m, known, nil
}

// ParseRunMeta reads data, the run.json at path (named in errors): one object whose model, effort, agent,
// agent_version and configuration are strings, attempt a whole number ≥ 1,
// and every other key (shaped like a --run-meta key) a string, number or
// boolean recorded as operator metadata.
func ParseRunMeta(path string, data []byte) (RunMeta, error) {
	var m RunMeta
	lineOf := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return m, fmt.Errorf("%s:%d: not JSON: %v", path, lineOf(se.Offset), se)
		}
		return m, fmt.Errorf("%s:1: want one JSON object of model, effort, agent, agent_version, attempt, configuration and KEY: VALUE pairs: %v", path, err)
	}
	if dec.More() {
		return m, fmt.Errorf("%s:%d: more than one JSON value", path, lineOf(dec.InputOffset()))
	}
	// The line a key is written on, for the messages.
	keyLine := func(k string) int {
		q, _ := json.Marshal(k)
		if i := bytes.Index(data, append(q, ':')); i >= 0 {
			return lineOf(int64(i))
		}
		if i := bytes.Index(data, q); i >= 0 {
			return lineOf(int64(i))
		}
		return 1
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		bad := func(want string) error {
			return fmt.Errorf("%s:%d: field %q: want %s, got %v", path, keyLine(k), k, want, v)
		}
		str := func(dst *string) error {
			s, ok := v.(string)
			if !ok {
				return bad("a string")
			}
			*dst = s
			return nil
		}
		var err error
		switch k {
		case "model":
			err = str(&m.Model)
		case "effort":
			err = str(&m.Effort)
		case "agent":
			err = str(&m.Agent)
		case "agent_version":
			err = str(&m.AgentVersion)
		case "configuration":
			err = str(&m.Configuration)
		case "attempt":
			n, ok := v.(json.Number)
			a, cerr := strconv.Atoi(string(n))
			if !ok || cerr != nil || a < 1 {
				err = bad("a whole number from 1")
			}
			m.Attempt = a
		case "task_class", "operator":
			err = bad("nothing: srb records it itself")
		default:
			if !metaKey.MatchString(k) {
				err = fmt.Errorf("%s:%d: field %q: a key is a letter then letters, digits, _ . or - (at most 64)", path, keyLine(k), k)
				break
			}
			switch x := v.(type) {
			case string:
				if m.Operator == nil {
					m.Operator = map[string]string{}
				}
				m.Operator[k] = x
			case json.Number, bool:
				if m.Operator == nil {
					m.Operator = map[string]string{}
				}
				m.Operator[k] = fmt.Sprint(x)
			default:
				err = bad("a string, number or boolean")
			}
		}
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

// RecordRunMeta returns a hook for a verdict before it is published
// (pipeline.Submission.Annotate): it puts m into the verdict's metadata
// under RunMetaKey.
func RecordRunMeta(m RunMeta) func(*result.Verdict) {
	return func(v *result.Verdict) {
		if v.Metadata == nil {
			v.Metadata = map[string]any{}
		}
		v.Metadata[RunMetaKey] = m.Map()
	}
}

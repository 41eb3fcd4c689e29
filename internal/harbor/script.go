package harbor

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
)

// Script is what `srb trial --agent scripted:FILE` replays: a JSON object
// {"steps": [...]}, each step exactly one of
//
//	{"write": {"path": "main.go", "content": "...", "mode": "0644"}}
//	{"delete": "tally.c"}
//	{"run": ["go", "build", "."]}
//
// Paths are slash-separated and relative to the workspace; mode is octal
// (default 0644). The steps run in order, as the agent's user, in the
// agent's container.
type Script struct {
	Steps []ScriptStep `json:"steps"`
}

// ScriptStep is one step of a [Script].
type ScriptStep struct {
	Write  *ScriptWrite `json:"write,omitempty"`
	Delete string       `json:"delete,omitempty"`
	Run    []string     `json:"run,omitempty"`
}

// ScriptWrite writes Content to Path with Mode (octal text).
type ScriptWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Mode    string `json:"mode,omitempty"`
}

// Perm is w's mode: Mode parsed as octal, 0644 when empty.
func (w *ScriptWrite) Perm() (os.FileMode, error) {
	if w.Mode == "" {
		return 0o644, nil
	}
	m, err := strconv.ParseUint(w.Mode, 8, 32)
	if err != nil || m > 0o777 {
		return 0, fmt.Errorf("mode %q: octal permission bits, e.g. 0644", w.Mode)
	}
	return os.FileMode(m), nil
}

// ReadScript reads and checks a script file. An unreadable file, bad
// JSON, an unknown key, a step with no action or more than one, or a path
// that is absolute, empty or climbs out of the workspace is an error
// naming the file and the step (1-based).
func ReadScript(file string) (*Script, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i, st := range s.Steps {
		n := 0
		var p string
		if st.Write != nil {
			n++
			p = st.Write.Path
			if _, err := st.Write.Perm(); err != nil {
				return nil, fmt.Errorf("%s: steps[%d].write: %w", file, i+1, err)
			}
		}
		if st.Delete != "" {
			n++
			p = st.Delete
		}
		if len(st.Run) > 0 {
			n++
			if st.Run[0] == "" {
				return nil, fmt.Errorf("%s: steps[%d].run: the program is empty", file, i+1)
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("%s: steps[%d]: a step is exactly one of write, delete, run (it has %d)", file, i+1, n)
		}
		if len(st.Run) == 0 {
			if err := checkRel(p); err != nil {
				return nil, fmt.Errorf("%s: steps[%d]: %w", file, i+1, err)
			}
		}
	}
	return &s, nil
}

func checkRel(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("path %q: a clean path relative to the workspace", p)
	}
	return nil
}

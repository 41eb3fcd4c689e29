package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Write prints reports as srb validate does: with asJSON, one indented
// JSON array of {task, dir, ok, problems, notes[, capabilities]}; else
// each report's problems (relative to base), notes and closing line,
// reports separated by a blank line. With caps, each loaded task's
// effective capability assertions follow ([image.CapabilitiesOf]). The
// error is w's.
func Write(w io.Writer, reports []*task.Report, base string, asJSON, caps bool) error {
	if asJSON {
		out := []jsonValidation{}
		for _, r := range reports {
			jv := jsonValidation{Task: taskName(r), Dir: filepath.ToSlash(r.Dir), OK: r.OK(), Problems: []jsonProblem{}, Notes: []jsonNote{}}
			for _, p := range r.Problems {
				jv.Problems = append(jv.Problems, toJSONProblem(p, base))
			}
			for _, n := range r.Notes {
				jv.Notes = append(jv.Notes, jsonNote{Rule: n.Rule, Message: n.Msg})
			}
			if caps && r.Task != nil {
				jv.Capabilities = image.CapabilitiesOf(r.Task)
			}
			out = append(out, jv)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		for _, p := range r.Problems {
			fmt.Fprintln(w, p.Format(base))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "note: %s [%s]\n", n.Msg, n.Rule)
		}
		if r.OK() {
			fmt.Fprintf(w, "%s: configuration is consistent\n", taskName(r))
		} else {
			fmt.Fprintf(w, "%s: %d problem(s)\n", taskName(r), len(r.Problems))
		}
		if caps && r.Task != nil {
			WriteCapabilities(w, image.CapabilitiesOf(r.Task))
		}
	}
	return nil
}

// jsonProblem is a problem in srb validate --json.
type jsonProblem struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// jsonNote is a note in srb validate --json.
type jsonNote struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// jsonValidation is one task in srb validate --json.
type jsonValidation struct {
	Task     string        `json:"task"`
	Dir      string        `json:"dir"`
	OK       bool          `json:"ok"`
	Problems []jsonProblem `json:"problems"`
	Notes    []jsonNote    `json:"notes"`
	// Capabilities is set with --capabilities for a task that loaded.
	Capabilities *image.Capabilities `json:"capabilities,omitempty"`
}

func toJSONProblem(p task.Problem, base string) jsonProblem {
	file, line, col := p.File, p.Line, 0
	if p.Pos.IsValid() {
		file, line, col = p.Pos.Filename(), p.Pos.Line(), p.Pos.Column()
	}
	if base != "" && file != "" {
		if r, err := filepath.Rel(base, file); err == nil {
			file = filepath.ToSlash(r)
		}
	}
	return jsonProblem{Rule: p.Rule, File: file, Line: line, Column: col, Field: p.Path, Message: p.Msg}
}

func taskName(r *task.Report) string {
	if r.Task != nil {
		return r.Task.ID
	}
	return filepath.Base(r.Dir)
}

// WriteCapabilities prints c as text: the stacks, then one line per stage
// image and run of checks that assert the same way from the same origin.
func WriteCapabilities(w io.Writer, c *image.Capabilities) {
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return strings.Join(xs, " ")
	}
	fmt.Fprintf(w, "%s: capabilities (class %s)\n", c.Task, c.Class)
	fmt.Fprintf(w, "  stacks.old: %s\n", list(c.Stacks.Old))
	fmt.Fprintf(w, "  stacks.new: %s\n", list(c.Stacks.New))
	fmt.Fprintf(w, "  stacks.shared: %s (%s)\n", list(c.Stacks.Shared), c.Stacks.SharedOrigin)
	verb := map[string]string{"have": "must have", "lack": "must lack", "observe": "observes"}
	for i := 0; i < len(c.Capabilities); {
		k := c.Capabilities[i]
		j := i
		var caps []string
		for ; j < len(c.Capabilities); j++ {
			n := c.Capabilities[j]
			if n.Stage != k.Stage || n.Assert != k.Assert || n.Origin != k.Origin {
				break
			}
			caps = append(caps, n.Capability)
		}
		fmt.Fprintf(w, "  %s: %s %s (%s)\n", k.Stage, verb[k.Assert], strings.Join(caps, " "), k.Origin)
		i = j
	}
}

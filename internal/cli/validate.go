package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/internal/validate"
)

// ValidateOptions are the inputs of srb validate.
type ValidateOptions struct {
	IO    IOStreams
	Getwd func() (string, error)
	Tasks []string
	JSON  bool
	Cache string
	// Capabilities shows each loaded task's effective capability
	// assertions (--capabilities).
	Capabilities bool
}

// NewCmdValidate builds `srb validate`.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: f.IO, Getwd: f.Getwd}
	cmd := &cobra.Command{
		Use:   "validate [TASK...]",
		Short: "Type-check tasks and run the static rules",
		Long:  help("validate"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tasks = args
			if runF != nil {
				return runF(opts)
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	addCacheFlag(cmd, &opts.Cache)
	cmd.Flags().BoolVar(&opts.Capabilities, "capabilities", false, "show each stage image's capability assertions, declared and defaulted")
	return cmd
}

// resolveTasks turns arguments into task folders: a folder holding
// task.cue, that task.cue itself, or an id under ./tasks. No argument means every task under
// ./tasks. A name that resolves to no folder is a usage error (exit 1);
// a folder without task.cue is the loader's problem to report (exit 2).
func resolveTasks(args []string) ([]string, error) {
	if len(args) == 0 {
		matches, err := filepath.Glob(filepath.Join("tasks", "*", task.FileName))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no tasks given and none found under ./tasks (looked for tasks/*/%s)", task.FileName)
		}
		var dirs []string
		for _, m := range matches {
			dirs = append(dirs, filepath.Dir(m))
		}
		sort.Strings(dirs)
		return dirs, nil
	}
	var dirs []string
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			dirs = append(dirs, filepath.Clean(a))
			continue
		} else if err == nil && filepath.Base(a) == task.FileName {
			// srb validate tasks/x/task.cue: the task is its folder.
			dirs = append(dirs, filepath.Dir(filepath.Clean(a)))
			continue
		}
		if st, err := os.Stat(filepath.Join("tasks", a)); err == nil && st.IsDir() {
			dirs = append(dirs, filepath.Join("tasks", a))
			continue
		}
		return nil, fmt.Errorf("no task folder %s (nor tasks/%s)", a, a)
	}
	return dirs, nil
}

type jsonProblem struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

type jsonNote struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

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

// shortRunHeap is the heap size at which a short command's collector
// starts ([shortRunGC]).
const shortRunHeap = 512 << 20

// shortRunGC turns the garbage collector's proportional pacing off for a
// short command (validate, notice, fetch), leaving it a memory limit of
// shortRunHeap: their heaps stay far below it (lang01's validate peaks
// under 60 MB), and collecting as they grow cost a third of their CPU
// time (issue 17). GOGC or GOMEMLIMIT in the environment win. The
// returned func restores the settings (tests run commands in-process).
func shortRunGC() func() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(shortRunHeap)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	defer shortRunGC()()
	dirs, err := resolveTasks(opts.Tasks)
	if err != nil {
		return couldNotRun(err)
	}
	cacheDir, err := resolveCache(opts.Cache)
	if err != nil {
		return err
	}
	base := ""
	if opts.Getwd != nil {
		base, _ = opts.Getwd()
	}
	var reports []*task.Report
	bad := 0
	for _, d := range dirs {
		r := validate.Task(ctx, d, cacheDir)
		reports = append(reports, r)
		if !r.OK() {
			bad++
		}
	}
	if opts.JSON {
		out := []jsonValidation{}
		for _, r := range reports {
			jv := jsonValidation{Task: taskName(r), Dir: filepath.ToSlash(r.Dir), OK: r.OK(), Problems: []jsonProblem{}, Notes: []jsonNote{}}
			for _, p := range r.Problems {
				jv.Problems = append(jv.Problems, toJSONProblem(p, base))
			}
			for _, n := range r.Notes {
				jv.Notes = append(jv.Notes, jsonNote{Rule: n.Rule, Message: n.Msg})
			}
			if opts.Capabilities && r.Task != nil {
				jv.Capabilities = image.CapabilitiesOf(r.Task)
			}
			out = append(out, jv)
		}
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return couldNotRun(err)
		}
	} else {
		w := opts.IO.Out
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
			if opts.Capabilities && r.Task != nil {
				writeCapabilities(w, image.CapabilitiesOf(r.Task))
			}
		}
	}
	if bad > 0 {
		return silent(ExitBadTask, fmt.Errorf("%d of %d task(s) have problems", bad, len(reports)))
	}
	return nil
}

func taskName(r *task.Report) string {
	if r.Task != nil {
		return r.Task.ID
	}
	return filepath.Base(r.Dir)
}

// writeCapabilities prints c as text: the stacks, then one line per stage
// image and run of checks that assert the same way from the same origin.
func writeCapabilities(w io.Writer, c *image.Capabilities) {
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

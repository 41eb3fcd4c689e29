package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/internal/validate"
)

// addJSONFlag binds --json into *dst.
func addJSONFlag(cmd *cobra.Command, dst *bool) {
	cmd.Flags().BoolVar(dst, "json", false, "print machine-readable JSON instead of text")
}

// writeJSON writes v as indented JSON with a trailing newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// argsValidator wraps a cobra positional-argument validator so that its
// failures are usage errors (exit 1) in srb's form rather than cobra's: see
// argsError.
func argsValidator(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &usageError{err: argsError(cmd, args)}
		}
		return nil
	}
}

// argsError says which command got which arguments, what it takes (the
// positional part of its Use line, or its subcommands) and where its usage
// is: "audit: takes TASK, got no argument (usage: srb audit TASK
// --submission DIR --results DIR; see srb audit --help)".
func argsError(cmd *cobra.Command, args []string) error {
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	var got string
	switch len(args) {
	case 0:
		got = "no argument"
	case 1:
		got = fmt.Sprintf("1 argument (%s)", args[0])
	default:
		got = fmt.Sprintf("%d arguments (%s)", len(args), strings.Join(args, " "))
	}
	var want string
	if cmd.HasAvailableSubCommands() {
		var subs []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				subs = append(subs, c.Name())
			}
		}
		want = "a subcommand: " + strings.Join(subs, ", ")
	} else if pos := positionalUse(cmd.Use); pos != "" {
		want = pos
	} else {
		want = "no arguments"
	}
	return fmt.Errorf("%s: takes %s, got %s (usage: %s; see %s --help)", name, want, got, cmd.UseLine(), cmd.CommandPath())
}

// positionalUse is the positional part of a cobra Use line: the words after
// the command's name up to the first flag ("audit TASK --submission DIR"
// gives "TASK"; "campaign ROOT | --compare A B" gives "ROOT").
func positionalUse(use string) string {
	words := strings.Fields(use)
	var pos []string
	for _, w := range words[min(1, len(words)):] {
		if strings.HasPrefix(w, "-") || w == "|" {
			break
		}
		pos = append(pos, w)
	}
	return strings.Join(pos, " ")
}

// addCacheFlag binds --cache, the State A cache folder, into *dst.
func addCacheFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "cache", "", "the State A cache folder (default $SRB_CACHE, else the user cache dir's srb)")
}

// resolveCache is the --cache value, else source.DefaultCacheDir; a
// failure is a harness fault (exit 1).
func resolveCache(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	d, err := source.DefaultCacheDir()
	if err != nil {
		return "", couldNotRun(err)
	}
	return d, nil
}

// loadMemo is where the task loads of validate, notice and fetch keep
// what they decode (task.LoadOptions.Memo) in the cache folder dir.
func loadMemo(dir string) string { return validate.LoadMemo(dir) }

// driverFlag is one model-position flag of srb ladder, audit,
// verification or trial: its name, the field of grade.DriverFlags it
// sets, named by srb ladder's flag for it ("" is name; "script" is
// DriverFlags.Scripts), and its usage line.
type driverFlag struct{ name, field, usage string }

// addDriverFlags registers flags on fl, each into its field of d: the one
// way the commands that choose drivers take them ([grade.CheckDriverFlags]
// checks what they parse into).
func addDriverFlags(fl *pflag.FlagSet, d *grade.DriverFlags, flags ...driverFlag) {
	strs := map[string]*string{"driver": &d.Driver, "audit-driver": &d.AuditDriver, "audit-model": &d.AuditModel,
		"adversary-driver": &d.AdversaryDriver, "adversary-model": &d.AdversaryModel, "adjudicator-driver": &d.AdjudicatorDriver,
		"adjudicator-model": &d.AdjudicatorModel, "adjudicator-script": &d.AdjudicatorScript}
	lists := map[string]*[]string{"audit-script": &d.AuditScripts, "adversary-script": &d.AdversaryScripts, "script": &d.Scripts}
	for _, f := range flags {
		field := f.field
		if field == "" {
			field = f.name
		}
		if p, ok := strs[field]; ok {
			fl.StringVar(p, f.name, "", f.usage)
		} else {
			fl.StringArrayVar(lists[field], f.name, nil, f.usage)
		}
	}
}

// checkDriverFlags is [grade.CheckDriverFlags] as a usage error.
func checkDriverFlags(d grade.DriverFlags) error {
	if err := grade.CheckDriverFlags(d); err != nil {
		return &usageError{err: err}
	}
	return nil
}

// loadTask resolves the task argument arg ([task.Dirs]) and loads it for
// the command name: a folder that cannot be found is a harness fault
// (exit 1, "name: why"); a task that cannot be read has its problems
// printed on errOut and is exit 2 ("name: cannot read the task DIR (N
// problem(s)); run srb validate").
func loadTask(name, arg string, errOut io.Writer) (*task.Task, error) {
	dirs, err := resolveTasks([]string{arg})
	if err != nil {
		return nil, couldNotRun(fmt.Errorf("%s: %w", name, err))
	}
	t, problems := task.Load(dirs[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(errOut, p.Format(""))
		}
		return nil, badTask(fmt.Errorf("%s: cannot read the task %s (%d problem(s)); run srb validate", name, dirs[0], len(problems)))
	}
	return t, nil
}

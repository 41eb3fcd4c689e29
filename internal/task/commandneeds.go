package task

import (
	"fmt"
	"sort"

	"github.com/swe-refactor-bench/srb/internal/buildcmd"
)

// AgentAlwaysHas lists the commands the agent image must have whatever
// the task declares: git, since State A is a git repository there (the
// agent works in it; its history is the submission's base). srb build's
// probe asserts each on the built image (image.Checks) and srb validate
// checks that the declaration provides each (rule image-must-have): one
// list, so the two cannot disagree.
var AgentAlwaysHas = []string{"git"}

// CommandNeed is a program a stage image must have because a command the
// task declares runs it there. srb validate checks it against what the
// image's declaration installs (rule image-must-have) and srb build's
// capability probe checks it on the built image (image.Checks): one list,
// so the two cannot disagree.
type CommandNeed struct {
	// Stage is the stage image the command runs in.
	Stage string
	// Field is the command: "state_b.build[1]",
	// "behavioural.configurations.default.original[0]".
	Field string
	// Program is what it runs: a bare name ("go") or an absolute path.
	Program string
}

// CommandNeeds lists the programs the task's build commands run, per
// stage image, as internal/buildcmd reads them (a shell's -c script
// parsed, wrappers and NAME=VALUE words skipped, npx needing npx):
// state_b.build runs in the behavioural image (stage 2 builds the
// submission there), each configuration's original commands in the
// verification image (srb freeze builds State A there, with the old
// toolchain) and, when state_b.detect is set, in the behavioural image
// too (stage 2 builds a tree that lacks the marker, State A submitted
// unchanged, with them: docs/SCHEMA.md "state_b.detect"). A program is listed once per stage, at the first command
// that runs it; configurations are read in name order. A script that does
// not parse is skipped here (rule exclude-build-input reports it).
func (t *Task) CommandNeeds() []CommandNeed {
	var out []CommandNeed
	seen := map[[2]string]bool{}
	add := func(stage, field string, build [][]string) {
		progs, _ := buildcmd.Programs(build)
		for _, p := range progs {
			k := [2]string{stage, p.Name}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, CommandNeed{Stage: stage, Field: fmt.Sprintf("%s[%d]", field, p.Cmd), Program: p.Name})
		}
	}
	add("behavioural", "state_b.build", t.StateB.Build)
	names := make([]string, 0, len(t.Behavioural.Configurations))
	for n := range t.Behavioural.Configurations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add("verification", "behavioural.configurations."+n+".original", t.Behavioural.Configurations[n].Original)
	}
	if t.StateB.Detect != "" {
		for _, n := range names {
			add("behavioural", "behavioural.configurations."+n+".original", t.Behavioural.Configurations[n].Original)
		}
	}
	return out
}

package task

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Dirs turns command arguments into task folders (relative to the
// working directory): a folder holding
// task.cue, that task.cue itself, or an id under ./tasks. No argument means every task under
// ./tasks. The error names an argument that resolves to no folder (or says
// ./tasks holds none); a folder without task.cue is the loader's problem
// to report.
func Dirs(args []string) ([]string, error) {
	if len(args) == 0 {
		matches, err := filepath.Glob(filepath.Join("tasks", "*", FileName))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no tasks given and none found under ./tasks (looked for tasks/*/%s)", FileName)
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
		} else if err == nil && filepath.Base(a) == FileName {
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

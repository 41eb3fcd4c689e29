package cli

import (
	"fmt"
	"os"
	"os/exec"
)

// processProbe prints, before and after [processDefaults], whether a
// child shell has descriptor 9 open and which umask it runs with, one line
// each ("before: open 0077"): what srb's children inherit from srb's own
// caller (process/process_defaults.txtar).
func processProbe() int {
	show := func(label string) error {
		out, err := exec.Command("/bin/sh", "-c", `if [ -e /proc/self/fd/9 ]; then f=open; else f=closed; fi; echo "$f $(umask)"`).Output()
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s", label, out)
		return nil
	}
	if err := show("before"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := processDefaults(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := show("after"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

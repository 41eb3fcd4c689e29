package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The helper is copied into stage images whatever their libc: it must be
// a static binary (no program interpreter, no dynamic section).
func TestStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the helper")
	}
	out := filepath.Join(t.TempDir(), "srb-helper")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the helper has a %v segment: it is not static", p.Type)
		}
	}
	// It runs, and says how it is used.
	b, err := exec.Command(out).CombinedOutput()
	if code := exitCode(err); code != 64 {
		t.Errorf("no arguments: exit %d, want 64 (usage)\n%s", code, b)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

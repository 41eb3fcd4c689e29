package kinds

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two folders of recording wrappers on PATH (a build's in front of the
// image's observation wrappers) once bounced a call between them for ever.
// The chain must end at the real tool, both logs must record the call, and
// a tool the real one runs must pass through both wrappers again.
func TestWrappersStack(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	tree(t, bin, map[string]string{
		// cc runs ld, as gcc runs its own programs through PATH.
		"cc": "+x #!/bin/sh\necho \"cc $*\"\nexec ld -o out \"$@\"\n",
		"ld": "+x #!/bin/sh\necho \"ld $*\"\n",
	})
	helper := []string{os.Args[0]}
	build, image := filepath.Join(root, "build-wrap"), filepath.Join(root, "observe")
	buildLog, imageLog := filepath.Join(root, "build.jsonl"), filepath.Join(root, "observed.log")
	for _, w := range []struct{ dir, log string }{{build, buildLog}, {image, imageLog}} {
		if err := writeWrappers(w.dir, w.log, root, helper, []string{"cc", "ld"}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "cc", "main.c")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+strings.Join([]string{build, image, bin, "/usr/bin", "/bin"}, ":"))
	cmd.Path = filepath.Join(build, "cc")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the wrapper chain did not end within 30s: %s", out)
	}
	if err != nil {
		t.Fatalf("cc through two wrapper folders: %v\n%s", err, out)
	}
	if got, want := string(out), "cc main.c\nld -o out main.c\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	for _, l := range []string{buildLog, imageLog} {
		inv, err := ReadInvocations(l)
		if err != nil {
			t.Fatal(err)
		}
		var tools []string
		for _, i := range inv {
			tools = append(tools, i.Tool)
		}
		if got := strings.Join(tools, ","); got != "cc,ld" {
			t.Errorf("%s recorded %q, want cc,ld", filepath.Base(l), got)
		}
	}
	if os.Getenv(EnvWrapCrossed) != "" {
		t.Errorf("%s leaked into the test's environment", EnvWrapCrossed)
	}
}

package agent

import (
	"context"
	"testing"
	"time"
)

// A command that floods its output is kept to MaxCapturedOutput bytes and
// still finishes.
func TestLocalRunnerCapsOutput(t *testing.T) {
	res, err := LocalRunner{}.Run(context.Background(), Command{Argv: []string{"sh", "-c", "head -c 5000000 /dev/zero; echo done >&2"},
		Dir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 20 * time.Second})
	if err != nil || res.ExitCode != 0 || len(res.Stdout) != MaxCapturedOutput || string(res.Stderr) != "done\n" {
		t.Errorf("exit %d, %d byte(s) of stdout, stderr %q, err %v", res.ExitCode, len(res.Stdout), res.Stderr, err)
	}
}

package behavioural_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

func ExampleSubmissionEnv() {
	env := behavioural.SubmissionEnv(
		[]string{"PATH=/usr/bin", "SRB_RESULT=/work/m/result.json", "SRB_REPO=/workspace/repo", "SRB_GOPROXY_ROOT=/opt/goproxy"},
		"GOFLAGS=-mod=mod")
	fmt.Println(env)
	// Output:
	// [PATH=/usr/bin SRB_GOPROXY_ROOT=/opt/goproxy GOFLAGS=-mod=mod]
}

func ExampleRunner_Run() {
	dir, _ := os.MkdirTemp("", "srb-example-")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "repo"), 0o755)
	suite := &behavioural.Suite{Task: "t", Dir: dir, Modules: []behavioural.Module{{
		ID: "hello", Weight: 1, Timeout: 10 * time.Second, Dir: dir,
		Command: []string{"/bin/sh", "-c", `echo '[{"id": "greets", "verdict": "pass"}]' > "$SRB_RESULT"`},
	}, {
		ID: "silent", Weight: 1, Timeout: 10 * time.Second, Dir: dir, Command: []string{"true"},
	}}}
	r := &behavioural.Runner{Repo: filepath.Join(dir, "repo"), Work: filepath.Join(dir, "work"),
		ResultPath: filepath.Join(dir, "behavioural.json")}
	st, err := r.Run(context.Background(), suite)
	if err != nil {
		fmt.Println(err)
	}
	for _, u := range st.Units {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s %s", u.ID, u.Status, u.Summary)))
	}
	for _, c := range st.Checks {
		fmt.Println(c.ID, c.Verdict)
	}
	// Output:
	// hello: ok
	// silent: error exited successfully and wrote no checks
	// hello/greets pass
}

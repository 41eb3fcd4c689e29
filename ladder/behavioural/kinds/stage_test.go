package kinds

import (
	"strings"
	"testing"
	"time"

	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// A corpus read from State A's tree with stage reaches, in the sandbox,
// the files beside each input that it names (as a stylesheet imports a
// sibling), and the staged folder is read-only: a case that tries to
// append to the imported file or move the folder aside changes nothing
// for the next case. Frozen from State A as root without a sandbox, the
// jailed check reproduces every case.
func TestCorpusStageFolder(t *testing.T) {
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	prog := "#!/bin/sh\nf=\"$1\"; d=$(dirname \"$f\")\ncat \"$f\"\ninc=$(head -n1 \"$f\")\ncat \"$d/$inc\" 2>/dev/null || echo \"failed to locate $inc\"\n" +
		"cat \"$d/../data/x.txt\" 2>/dev/null || echo \"failed to locate data\"\n" +
		"if [ \"$(id -u)\" != 0 ]; then echo tamper >> \"$d/$inc\" 2>/dev/null; mv \"$d\" \"$d.x\" 2>/dev/null; fi; true\n"
	tree(t, original, map[string]string{
		"prog.sh": prog, "test/cases/a.styl": "lib/b.txt\n", "test/cases/c.styl": "lib/b.txt\n",
		"test/cases/lib/b.txt": "B\n", "test/data/x.txt": "X\n",
	})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	build := [][]string{{"cp", "prog.sh", "prog"}, {"chmod", "+x", "prog"}}
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {Original: build, Outputs: []string{"prog"}}},
		StateB:         build,
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "corpus", Kind: "command", About: "c", Weight: 1, Timeout: time.Minute, Params: raw(map[string]any{
				"compare": []string{"stdout", "exit"},
				"corpus": map[string]any{"from": "original", "dir": "test/cases", "glob": "*.styl", "stdin": false,
					"argv": []string{"${BUILD}/prog", "${INPUT}"}, "stage": "test"},
			})},
		},
	}
	for jailed, failing := range frozenThenChecked(t, root, taskDir, original, original, d) {
		if len(failing) > 0 {
			t.Errorf("jailed %v: failing:\n%s", jailed, strings.Join(failing, "\n"))
		}
	}
}

func TestCorpusStageRefused(t *testing.T) {
	for _, tc := range []struct {
		c    Corpus
		want string
	}{
		{Corpus{From: "task", Dir: "data/c", Stage: "data"}, "is for a corpus read from State A's tree"},
		{Corpus{From: "original", Dir: "test/cases", Stage: "lib"}, `does not hold the corpus folder "test/cases"`},
		{Corpus{From: "original", Dir: "test/cases", Stage: "../x"}, "is not a folder inside State A's tree"},
		{Corpus{From: "original", Dir: "test/cases", Stage: "."}, "is not a folder inside State A's tree"},
	} {
		err := tc.c.checkStage()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
	for _, ok := range []Corpus{{From: "original", Dir: "test/cases", Stage: "test"}, {From: "original", Dir: "test/cases", Stage: "test/cases/"}} {
		if err := ok.checkStage(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

package kinds

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// examples is a corpus file in the shape of CommonMark's spec: prose, then
// examples fenced by 32 backticks, input and expected part separated by a
// line with one dot, → standing for a tab.
const examples = "# Tabs\n\nSome prose.\n\n" +
	"```````````````````````````````` example\n→foo\n.\n<pre>foo</pre>\n````````````````````````````````\n\n" +
	"More prose with a . line\n.\n\n" +
	"```````````````````````````````` example\r\none\r\ntwo\r\n.\r\n<p>x</p>\r\n````````````````````````````````\r\n" +
	"```````````````````````````````` example\n.\n````````````````````````````````\n"

var specSplit = &Split{Begin: "^`{32} example$", Middle: `^\.$`, End: "^`{32}$", Replace: []Rewrite{{Pattern: "→", Replace: "\t"}}}

func TestSplitCases(t *testing.T) {
	root := t.TempDir()
	original := filepath.Join(root, "a")
	tree(t, original, map[string]string{"test/spec.txt": examples, "test/other.md": "not a corpus file\n"})
	k := &commandKind{CommandParams: CommandParams{Corpus: &Corpus{From: "original", Dir: "test", Glob: "*.txt",
		Argv: []string{"prog", "${INPUT}"}, Stdin: true, Split: specSplit}}}
	scratch := filepath.Join(root, "inputs")
	got, err := k.cases(filepath.Join(root, "task"), original, scratch)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"spec/0001": "\tfoo\n", "spec/0002": "one\r\ntwo\r\n", "spec/0003": ""}
	if len(got) != len(want) {
		t.Fatalf("%d cases, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range got {
		if w, ok := want[c.ID]; !ok || string(c.stdinBytes) != w {
			t.Errorf("case %d %s: stdin %q, want %q (known: %v)", i, c.ID, c.stdinBytes, w, ok)
		}
		input := filepath.Join(scratch, filepath.FromSlash(c.ID))
		if diff := cmp.Diff([]string{"prog", input}, c.Argv); diff != "" {
			t.Errorf("case %s argv (-want +got):\n%s", c.ID, diff)
		}
		if b, err := os.ReadFile(input); err != nil || string(b) != want[c.ID] {
			t.Errorf("case %s: ${INPUT} holds %q, %v", c.ID, b, err)
		}
	}

	// The same split over the task folder (from: task, the default).
	tree(t, filepath.Join(root, "task"), map[string]string{"data/ex.txt": examples})
	k.Corpus.From, k.Corpus.Dir = "", "data"
	if got, err := k.cases(filepath.Join(root, "task"), "", scratch); err != nil || len(got) != 3 || got[0].ID != "ex/0001" {
		t.Errorf("from the task folder: %d cases, %v", len(got), err)
	}
}

func TestSplitErrors(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"open/spec.txt": "x\n```````````````````````````````` example\nabc\n",
		"none/spec.txt": "just prose\n",
	})
	for _, tt := range []struct {
		name     string
		corpus   Corpus
		original string
		want     string
	}{
		{"no original", Corpus{From: "original", Dir: "open", Glob: "*", Split: specSplit}, "",
			"corpus open is read from State A's tree, and the stage was given none ($SRB_ORIGINAL is unset)"},
		{"unclosed", Corpus{From: "original", Dir: "open", Glob: "*", Split: specSplit}, root,
			"spec.txt:2: a case opens here and never closes"},
		{"no case", Corpus{From: "original", Dir: "none", Glob: "*", Split: specSplit}, root, "spec.txt: no case"},
		{"bad regexp", Corpus{From: "original", Dir: "none", Glob: "*", Split: &Split{Begin: "(", End: "x"}}, root, "split: begin: error parsing regexp"},
		{"expect too", Corpus{From: "original", Dir: "none", Glob: "*", Expect: "*.exp", Split: specSplit}, root, "expect and split exclude each other"},
		{"from elsewhere", Corpus{From: "submission", Dir: "none", Glob: "*"}, root, `corpus from "submission": want task or original`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.corpus
			c.Argv = []string{"prog"}
			k := &commandKind{CommandParams: CommandParams{Corpus: &c}}
			_, err := k.cases(root, tt.original, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestSplitFromOriginalFreezeAndCheck freezes a module whose cases come
// from a file of State A's tree, then checks a submission that deleted
// that file and renders one example differently: the cases still come
// from State A, and exactly that example's check fails.
func TestSplitFromOriginalFreezeAndCheck(t *testing.T) {
	root := t.TempDir()
	taskDir, original, sub := filepath.Join(root, "task"), filepath.Join(root, "a"), filepath.Join(root, "sub")
	render := "+x #!/bin/sh\ntr a-z A-Z\n"
	tree(t, original, map[string]string{"render.sh": render, "test/spec.txt": examples})
	tree(t, sub, map[string]string{"render.sh": "+x #!/bin/sh\ntr a-z A-Z | sed s/TWO/2/\n"})
	tree(t, taskDir, map[string]string{"task.cue": "package srb\n"})
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {Original: [][]string{{"cp", "render.sh", "render"}}, Outputs: []string{"render"}}},
		StateB:         [][]string{{"cp", "render.sh", "render"}},
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "spec", Kind: "command", About: "s", Weight: 1, Timeout: time.Minute, Params: raw(map[string]any{
				"compare": []string{"stdout", "exit"},
				"corpus":  map[string]any{"from": "original", "dir": "test", "glob": "spec.txt", "argv": []string{"${BUILD}/render"}, "stdin": true, "split": specSplit},
			})},
		},
	}
	helper := []string{os.Args[0]}
	fz := &behavioural.Freezer{
		Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl:   d, Helper: helper, Provenance: behavioural.Provenance{StateA: "digest", Where: "host"},
	}
	if _, err := fz.Freeze(context.Background()); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	tr, err := behavioural.ReadTruth(behavioural.TruthPath(taskDir, "spec"))
	if err != nil {
		t.Fatal(err)
	}
	wantTruth := map[string]any{
		"spec/0001/stdout": "\tFOO\n", "spec/0001/exit": 0.0,
		"spec/0002/stdout": "ONE\r\nTWO\r\n", "spec/0002/exit": 0.0,
		"spec/0003/stdout": "", "spec/0003/exit": 0.0,
	}
	if diff := cmp.Diff(wantTruth, tr.Observations); diff != "" {
		t.Errorf("truth (-want +got):\n%s", diff)
	}
	work := filepath.Join(root, "check")
	s, err := d.Suite(behavioural.ModeCheck, work, filepath.Join(taskDir, behavioural.TruthDir), helper)
	if err != nil {
		t.Fatal(err)
	}
	st, err := (&behavioural.Runner{Repo: sub, Original: original, Work: work}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	failing, passing := checksByVerdict(st)
	if diff := cmp.Diff([]string{`spec/spec/0002/stdout: line 2: want "TWO\r\n", got "2\r\n"`}, failing); diff != "" {
		t.Errorf("failing checks (-want +got):\n%s", diff)
	}
	if passing != 7 { // build/builds, build/outputs and five of the six spec checks
		t.Errorf("%d checks passed, want 7", passing)
	}
}

package task

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTruthMemo: validating with a memo gives the same report as without
// it, keeps one file, and reads it on the next run; a changed truth file
// (same size and mtime, other bytes) is checked again, never answered
// from the memo.
func TestTruthMemo(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "tasks", "lang90-tally-c-to-go")
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(tmp, "statea", "tally-1.0"), os.DirFS("../../testdata/statea/tally-1.0")); err != nil {
		t.Fatal(err)
	}
	memo := filepath.Join(t.TempDir(), "memo")
	msgs := func(r *Report) []string {
		var out []string
		for _, p := range r.Problems {
			out = append(out, p.Rule+": "+p.Msg)
		}
		return out
	}
	plain := Validate(dir)
	first := ValidateWith(dir, ValidateOptions{TruthMemo: memo})
	if !slices.Equal(msgs(plain), msgs(first)) || !first.OK() {
		t.Fatalf("with a memo %q, without %q; want both empty", msgs(first), msgs(plain))
	}
	kept, _ := filepath.Glob(filepath.Join(memo, "*.json"))
	if len(kept) != 1 {
		t.Fatalf("memo holds %v, want one file", kept)
	}
	// The next run reads the memo: a forged memo entry shows it is read.
	os.WriteFile(kept[0], []byte(`[{"File":"forged","Msg":"from the memo"}]`), 0o644)
	if r := ValidateWith(dir, ValidateOptions{TruthMemo: memo}); len(r.Problems) != 1 || r.Problems[0].Msg != "from the memo" {
		t.Fatalf("second run: %q, want the memo's answer", msgs(r))
	}
	os.WriteFile(kept[0], []byte("[]"), 0o644)

	// Same length, same mtime, other task: the bytes key the memo.
	truth := filepath.Join(dir, "truth", "usage.json")
	st, _ := os.Stat(truth)
	b, _ := os.ReadFile(truth)
	changed := strings.Replace(string(b), `"task": "lang90-tally-c-to-go"`, `"task": "lang90-tally-c-to-gx"`, 1)
	if changed == string(b) {
		t.Fatal("fixture truth does not name its task as expected")
	}
	os.WriteFile(truth, []byte(changed), 0o644)
	os.Chtimes(truth, st.ModTime(), st.ModTime())
	r := ValidateWith(dir, ValidateOptions{TruthMemo: memo})
	if want := msgs(Validate(dir)); len(want) == 0 || !slices.Equal(msgs(r), want) {
		t.Fatalf("after the change: %q, want %q (not empty)", msgs(r), want)
	}
}

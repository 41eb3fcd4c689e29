package task

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLoadMemo loads the fixture and each real task with no memo, then
// twice through a memo (a miss that writes it, a hit that reads it), and
// checks that all three give the same task, that the hit really came from
// the memo file, and that a changed task file misses.
func TestLoadMemo(t *testing.T) {
	for _, dir := range []string{fixtureDir, "../../tasks/lang01-cmark-c-to-rust", "../../tasks/build01-libsodium-autotools-to-cmake", "../../tasks/pf02-stylus-web-platform-port"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, ps := Load(dir)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			memo := t.TempDir()
			o := LoadOptions{Memo: memo}
			miss, ps := LoadWith(dir, o)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			files, _ := filepath.Glob(filepath.Join(memo, "*.json"))
			if len(files) != 1 {
				t.Fatalf("memo files after a miss: %v, want one (does the task survive a JSON round trip?)", files)
			}
			hit, ps := LoadWith(dir, o)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			for name, got := range map[string]*Task{"miss": miss, "hit": hit} {
				if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Task{})); d != "" {
					t.Errorf("%s differs from a load with no memo (-want +got):\n%s", name, d)
				}
				if !reflect.DeepEqual(want.Pos("scoring"), got.Pos("scoring")) || got.Pos("scoring").Line() == 0 {
					t.Errorf("%s: Pos(scoring) = %v, want %v", name, got.Pos("scoring"), want.Pos("scoring"))
				}
			}
			// A memo naming a different id proves the hit reads the memo.
			raw, _ := os.ReadFile(files[0])
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			m["id"] = "from-the-memo"
			forged, _ := json.Marshal(m)
			if err := os.WriteFile(files[0], forged, 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _ := LoadWith(dir, o); got == nil || got.ID != "from-the-memo" {
				t.Errorf("Load did not read the memo file")
			}
			// Other bytes are another key: a copy with one more comment misses.
			cp := t.TempDir()
			src, _ := os.ReadFile(filepath.Join(dir, FileName))
			os.WriteFile(filepath.Join(cp, FileName), append(src, "\n// edited\n"...), 0o644)
			if got, _ := LoadWith(cp, o); got == nil || got.ID != want.ID {
				t.Errorf("an edited task file read another file's memo: %v", got)
			}
		})
	}
}

// TestLoadMemoSkipsProblems: a task with a schema problem is never kept.
func TestLoadMemoSkipsProblems(t *testing.T) {
	memo := t.TempDir()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("package srb\nid: 3\n"), 0o644)
	if _, ps := LoadWith(dir, LoadOptions{Memo: memo}); len(ps) == 0 {
		t.Fatal("no problem for id: 3")
	}
	if files, _ := filepath.Glob(filepath.Join(memo, "*")); len(files) != 0 {
		t.Errorf("a task with problems was memoised: %v", files)
	}
}

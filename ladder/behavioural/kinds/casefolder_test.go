package kinds

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// Every case runs in a folder named by its number; one that needs no
// files written in first gets the folder its worker's last case had,
// renamed, and starts in it as in a new one: empty, with the mode it was
// made with, whatever the case before did to it (wrote in it, changed its
// mode, moved it away and planted another); what a case left stays in
// its folder. A case with files gets a new folder.
func TestCaseFolderIsFreshForEveryCase(t *testing.T) {
	dir := t.TempDir()
	suiteWork := filepath.Join(dir, "shared")
	l := behavioural.Ledger{Dir: filepath.Join(suiteWork, behavioural.LedgerDir)}
	tree := filepath.Join(l.Entry("default"), "tree")
	os.MkdirAll(tree, 0o755)
	if err := l.Put(behavioural.LedgerEntry{Configuration: "default", OK: true, Tree: tree}); err != nil {
		t.Fatal(err)
	}
	look := `ls -A; stat -c %a .; pwd`
	cases := []Case{
		{ID: "write", Argv: []string{"/bin/sh", "-c", "echo hi > x; ls -A"}},
		{ID: "after-write", Argv: []string{"/bin/sh", "-c", look}},
		{ID: "chmod", Argv: []string{"/bin/sh", "-c", "chmod 700 ."}},
		{ID: "after-chmod", Argv: []string{"/bin/sh", "-c", look}},
		{ID: "replace", Argv: []string{"/bin/sh", "-c", `d=$(pwd); cd ..; mv "$d" "$d.old"; mkdir "$d"; touch "$d/planted"`}},
		{ID: "after-replace", Argv: []string{"/bin/sh", "-c", look}},
		{ID: "files", Argv: []string{"/bin/sh", "-c", "cat in; echo out > out; pwd"}, Files: map[string]string{"in": "given\n"}, Produces: []string{"out"}},
		{ID: "after-files", Argv: []string{"/bin/sh", "-c", look}},
	}
	k, err := newKind("command", raw(CommandParams{Configuration: "default", Compare: []string{"stdout", "exit", "files"}, Cases: cases}))
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	m := &module{
		plan: &behavioural.Plan{Module: "m", Kind: "command", Mode: behavioural.ModeRecord, TaskDir: dir},
		kind: k, work: work, suiteWork: suiteWork, result: filepath.Join(work, "result.json"),
		log: os.Stderr, seen: map[string]bool{},
		obs: behavioural.Observations{Values: map[string]any{}},
	}
	if err := k.observe(m); err != nil {
		t.Fatal(err)
	}
	casesDir := filepath.Join(work, "cases")
	fresh := func(i int) string { return "755\n" + filepath.Join(casesDir, fmt.Sprintf("%04d", i)) + "\n" }
	want := map[string]any{
		"write/stdout": "x\n", "after-write/stdout": fresh(1), "after-chmod/stdout": fresh(3),
		"after-replace/stdout": fresh(5), "files/stdout": "given\n" + filepath.Join(casesDir, "0006") + "\n", "after-files/stdout": fresh(7),
		"replace/exit": float64(0), "chmod/exit": float64(0),
	}
	for id, w := range want {
		if got := m.obs.Values[id]; got != w {
			t.Errorf("%s = %#v, want %#v", id, got, w)
		}
	}
	if b, err := os.ReadFile(filepath.Join(casesDir, "0000", "x")); err != nil || string(b) != "hi\n" {
		t.Errorf("what case 0 left: %q, %v; want it kept aside as its folder", b, err)
	}
	if _, err := os.Stat(filepath.Join(casesDir, "0004", "planted")); err != nil {
		t.Errorf("the folder planted in case 4: %v; want it moved aside", err)
	}
	// Cases 1, 3 and 5 left their folders as they got them: each was
	// renamed for the next case that needed no files.
	for _, n := range []string{"0001", "0003", "0005"} {
		if _, err := os.Lstat(filepath.Join(casesDir, n)); err == nil {
			t.Errorf("folder %s is still there: it was not reused", n)
		}
	}
	if b, err := os.ReadFile(filepath.Join(casesDir, "0006", "out")); err != nil || string(b) != "out\n" {
		t.Errorf("case 6's own folder: %q, %v", b, err)
	}
}

package image

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/buildkit/solver/pb"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// pkgDigest is npmTreeJS's digest of a package folder holding files
// (relative path → content, no nested node_modules), computed apart.
func pkgDigest(files map[string]string) string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00%s", n, len(files[n]), files[n])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// TestNPMTreeScript runs the npm tree step's script with the host's node
// over a global node_modules laid out as npm lays it out (a package, its
// nested dependency, a scoped package, a linked one): every package is a
// line with its version and the digest of its own files, and a nested
// dependency that resolves to another version moves only its own line.
func TestNPMTreeScript(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on this machine")
	}
	root := filepath.Join(t.TempDir(), "lib", "node_modules")
	write := func(rel string, files map[string]string) {
		for n, c := range files {
			p := filepath.Join(root, rel, n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	odd := map[string]string{"package.json": `{"name": "is-odd", "version": "3.0.1"}`, "index.js": "module.exports = n => n % 2 === 1;\n"}
	num := map[string]string{"package.json": `{"name": "is-number", "version": "6.0.0"}`, "index.js": "module.exports = 1;\n", "lib/x.js": "x\n"}
	sc := map[string]string{"package.json": `{"name": "@sc/pk", "version": "0.1.0"}`}
	write("is-odd", odd)
	write("is-odd/node_modules/is-number", num)
	write("@sc/pk", sc)
	if err := os.Symlink("/opt/elsewhere", filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		probe := t.TempDir()
		script := strings.ReplaceAll(npmTreeScript, "$(npm root -g)", root)
		script = strings.ReplaceAll(script, ProbeDir, probe)
		out, err := exec.Command("/bin/sh", "-c", script, npmTreeJS).CombinedOutput()
		if err != nil {
			t.Fatalf("npm tree script: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(probe, "packages.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := strings.Join([]string{
		"npm:node_modules/@sc/pk=0.1.0 " + pkgDigest(sc),
		"npm:node_modules/is-odd/node_modules/is-number=6.0.0 " + pkgDigest(num),
		"npm:node_modules/is-odd=3.0.1 " + pkgDigest(odd),
		"npm:node_modules/linked=link:/opt/elsewhere",
	}, "\n") + "\n"
	got := run()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("npm tree (-want +got):\n%s", d)
	}

	// A patch release of the nested dependency: its line alone moves, and
	// PackagesMoved names it.
	num2 := map[string]string{"package.json": `{"name": "is-number", "version": "6.0.1"}`, "index.js": "module.exports = 2;\n", "lib/x.js": "x\n"}
	write("is-odd/node_modules/is-number", num2)
	got2 := run()
	moved := diffPackages(got, got2)
	wantMoved := []string{fmt.Sprintf("npm:node_modules/is-odd/node_modules/is-number 6.0.0 %s → 6.0.1 %s", pkgDigest(num), pkgDigest(num2))}
	if d := cmp.Diff(wantMoved, moved); d != "" {
		t.Errorf("moved (-want +got):\n%s", d)
	}

	// What images.lock records of the two trees, and what it names.
	was, err := ParseNPMTree("gcc=4:12.2.0-3\n" + got)
	if err != nil {
		t.Fatal(err)
	}
	wantTree := []NPMPackage{
		{Name: "@sc/pk", Version: "0.1.0", Path: "node_modules/@sc/pk", Integrity: pkgDigest(sc)},
		{Name: "is-odd", Version: "3.0.1", Path: "node_modules/is-odd", Integrity: pkgDigest(odd)},
		{Name: "is-number", Version: "6.0.0", Path: "node_modules/is-odd/node_modules/is-number", Integrity: pkgDigest(num)},
		{Name: "linked", Path: "node_modules/linked", Link: "/opt/elsewhere"},
	}
	if d := cmp.Diff(wantTree, was); d != "" {
		t.Errorf("npm tree in the lock (-want +got):\n%s", d)
	}
	now, err := ParseNPMTree(got2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"npm is-number 6.0.0 → 6.0.1 (node_modules/is-odd/node_modules/is-number)"}, NPMMoved(was, now)); d != "" {
		t.Errorf("NPMMoved (-want +got):\n%s", d)
	}
}

// TestNPMTreeInLock: images.lock records each image's npm tree from its
// probed packages list (name@version, path, integrity; a link's target),
// the JSON Schema accepts it, and srb build --verify's comparison names
// the nested dependency a registry moved from the lockfile alone (no
// kept packages list needed), each package once.
func TestNPMTreeInLock(t *testing.T) {
	dg := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	list := func(b, bDigest string) string {
		return "gcc=4:12.2.0-3\nnpm:node_modules/a=1.0.0 " + dg("a") + "\nnpm:node_modules/a/node_modules/b=" + b + " " + bDigest +
			"\nnpm:node_modules/l=link:/opt/l\n"
	}
	tk := &task.Task{ID: "t1"}
	in := &Inputs{Base: Input{Name: "base", Digest: dg("1"), About: "base"}, StateA: Input{Name: "state-a", Digest: dg("2"), About: "State A"},
		TaskCommit: "uncommitted"}
	lockOf := func(packages, digest string) *Lock {
		sum := sha256.Sum256([]byte(packages))
		p := &Probed{Packages: packages, PackagesDigest: "sha256:" + hex.EncodeToString(sum[:])}
		return NewLock(tk, "v0.26.3", in, []*Built{{Stage: "agent", Digest: digest, Config: dg("c"), LLB: dg("e"), Probed: p}})
	}
	was := lockOf(list("2.0.0", dg("b")), dg("d"))
	want := []NPMPackage{
		{Name: "a", Version: "1.0.0", Path: "node_modules/a", Integrity: dg("a")},
		{Name: "b", Version: "2.0.0", Path: "node_modules/a/node_modules/b", Integrity: dg("b")},
		{Name: "l", Path: "node_modules/l", Link: "/opt/l"},
	}
	if d := cmp.Diff(want, was.Images["agent"].NPM); d != "" {
		t.Fatalf("npm tree (-want +got):\n%s", d)
	}
	dir := t.TempDir()
	if err := WriteLock(dir, was); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(was, back); d != "" {
		t.Errorf("round trip (-wrote +read):\n%s", d)
	}
	// The schema refuses an entry with no path, and a made-up digest.
	b, err := os.ReadFile(filepath.Join(dir, LockName))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(string(b), `"path": "node_modules/a",`, "", 1),
		strings.Replace(string(b), dg("a"), "sha256:nothex", 1),
	} {
		if bad == string(b) {
			t.Fatal("the replacement matched nothing")
		}
		if err := os.WriteFile(filepath.Join(dir, LockName), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLock(dir); err == nil || !strings.Contains(err.Error(), "/images/agent/npm/0") {
			t.Errorf("a bad npm entry: %v", err)
		}
	}

	// A rebuild where the registry's patch release of b moved the image:
	// Compare names b from the lockfile, and packagesDrift adds nothing
	// npm twice even when both packages lists are kept here.
	now := lockOf(list("2.0.1", dg("f")), dg("9"))
	root := t.TempDir()
	ds := Compare(was, now)
	if len(ds) != 1 {
		t.Fatalf("drift %v", ds)
	}
	got := packagesDrift(root, was, now, ds[0])
	s := got.String()
	for _, w := range []string{"input packages moved from", "input packages: npm b 2.0.0 → 2.0.1 (node_modules/a/node_modules/b)"} {
		if !strings.Contains(s, w) {
			t.Errorf("drift %q does not say %q", s, w)
		}
	}
	if strings.Count(s, "node_modules/a/node_modules/b") != 1 {
		t.Errorf("b named more than once: %q", s)
	}
	// A plain build logs the same, from the lock it replaces, once.
	var logged []string
	notePackagesMoved(root, was, now, func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	if d := cmp.Diff([]string{
		"t1: the agent image's packages moved since images.lock: the packages list of agent (" + was.Images["agent"].Inputs["packages"][:19] + ") is not kept on this machine, so the Debian packages that moved cannot be named",
		"t1: the agent image's npm tree moved since images.lock: npm b 2.0.0 → 2.0.1 (node_modules/a/node_modules/b)",
	}, logged); d != "" {
		t.Errorf("logged (-want +got):\n%s", d)
	}
	// Content moved under the same version: named as files moved.
	same := lockOf(list("2.0.0", dg("f")), dg("8"))
	if ds := Compare(was, same); len(ds) != 1 || !strings.Contains(ds[0].String(), "npm b@2.0.0 files moved, "+dg("b")+" → "+dg("f")) {
		t.Errorf("same version, other files: %v", ds)
	}
	// A lockfile written before the tree was recorded compares as before.
	old := *was
	old.Images = map[string]LockImage{"agent": was.Images["agent"]}
	im := old.Images["agent"]
	im.NPM = nil
	old.Images["agent"] = im
	if ds := Compare(&old, now); len(ds) != 1 || strings.Contains(ds[0].String(), "npm b") {
		t.Errorf("old lockfile: %v", ds)
	}
	if _, err := ParseNPMTree("npm:node_modules/x=1.0.0\n"); err == nil {
		t.Error("a line without a digest was read")
	}
}

// TestPackagesMoved: srb build keeps each image's packages list by its
// digest; a later build whose digest differs from images.lock's names
// each package that moved, was added or is gone, Debian and npm alike,
// and says so when the recorded list is not on this machine.
func TestPackagesMoved(t *testing.T) {
	root := t.TempDir()
	was := "gcc=4:12.2.0-3\nmake=4.3-4.1\nnpm:node_modules/a=1.0.0 sha256:aa\nnpm:node_modules/a/node_modules/b=2.0.0 sha256:bb\n"
	now := "gcc=4:12.2.0-3\nnpm:node_modules/a=1.0.0 sha256:aa\nnpm:node_modules/a/node_modules/b=2.0.1 sha256:cc\nnpm:node_modules/c=0.1.0 sha256:dd\n"
	probed := func(list string) *Probed {
		sum := sha256.Sum256([]byte(list))
		return &Probed{Packages: list, PackagesDigest: "sha256:" + hex.EncodeToString(sum[:])}
	}
	pw, pn := probed(was), probed(now)
	lock := func(p *Probed) *Lock {
		return &Lock{Images: map[string]LockImage{"agent": {Inputs: map[string]string{"packages": p.PackagesDigest}}}}
	}
	if got := PackagesMoved(root, lock(pw), lock(pn), "agent"); len(got) != 1 || !strings.Contains(got[0], "is not kept on this machine") {
		t.Errorf("before any list is kept: %q", got)
	}
	if err := RememberPackages(root, []*Built{{Stage: "agent", Probed: pw}, {Stage: "audit"}}); err != nil {
		t.Fatal(err)
	}
	if err := RememberPackages(root, []*Built{{Stage: "agent", Probed: pn}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"make is gone (was 4.3-4.1)",
		"npm:node_modules/a/node_modules/b 2.0.0 sha256:bb → 2.0.1 sha256:cc",
		"npm:node_modules/c is new (0.1.0 sha256:dd)",
	}
	if d := cmp.Diff(want, PackagesMoved(root, lock(pw), lock(pn), "agent")); d != "" {
		t.Errorf("moved (-want +got):\n%s", d)
	}
	if got := PackagesMoved(root, lock(pw), lock(pw), "agent"); got != nil {
		t.Errorf("same digest: %q, want nil", got)
	}
	var many []string
	for i := range maxMoved + 5 {
		many = append(many, fmt.Sprintf("npm:node_modules/p%02d=1.0.0", i))
	}
	if got := diffPackages("", strings.Join(many, "\n")); len(got) != maxMoved+1 || got[maxMoved] != "… and 5 more" {
		t.Errorf("capped list: %d entries, last %q", len(got), got[len(got)-1])
	}
}

// TestNPMTreeProbe: a stage that declares npm packages lists its npm tree
// in the probe's output (the step runs the tree script on the image);
// a stage that declares none has no such step, so its probe and packages
// digest are what they were.
func TestNPMTreeProbe(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	k := *tk
	k.Images = cloneImages(tk.Images)
	a := k.Images.Stage("audit")
	a.Packages = []string{"nodejs=18.20.4+dfsg-1~deb12u2", "npm=9.2.0~ds1-1"}
	a.NPM = []string{"semver@7.6.3"}
	in := fakeInputs()
	in.NPMConfig = &Input{Name: "npm-config", Digest: "sha256:" + strings.Repeat("7", 64), About: "the host's npm configuration"}
	treeSteps := func(stage string) int {
		c, err := Compile(&k, stage, in)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Marshal(t.Context(), c.Probe)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, raw := range d.Def {
			var op pb.Op
			if err := op.UnmarshalVT(raw); err != nil {
				t.Fatal(err)
			}
			if ex := op.GetExec(); ex != nil && len(ex.Meta.Args) == 4 && ex.Meta.Args[2] == npmTreeScript && ex.Meta.Args[3] == npmTreeJS {
				n++
				var probeMount bool
				for _, m := range ex.Mounts {
					probeMount = probeMount || (m.Dest == ProbeDir && !m.Readonly)
				}
				if !probeMount {
					t.Errorf("%s: the npm tree step does not write the probe's folder", stage)
				}
			}
		}
		return n
	}
	if n := treeSteps("audit"); n != 1 {
		t.Errorf("audit (npm declared): %d npm tree steps, want 1", n)
	}
	if n := treeSteps("agent"); n != 0 {
		t.Errorf("agent (no npm): %d npm tree steps, want 0", n)
	}
}

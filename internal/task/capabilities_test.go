package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/templates"
)

// effective is what a task's images must have, lack and observe after
// the schema's defaults, per stage, and what stacks.shared came to.
type effective struct {
	Shared []string
	Have   map[string][]string
	Lack   map[string][]string
	Obs    map[string][]string
}

func effectiveOf(t *Task) effective {
	e := effective{Shared: t.Images.Stacks.Shared, Have: map[string][]string{}, Lack: map[string][]string{}, Obs: map[string][]string{}}
	for _, s := range StageNames {
		d := t.Images.Stage(s)
		e.Have[s], e.Lack[s], e.Obs[s] = d.MustHave, d.MustLack, d.Observe
	}
	return e
}

func loadOK(t *testing.T, dir string) *Task {
	t.Helper()
	tk, ps := Load(dir)
	for _, p := range ps {
		t.Errorf("%s", p.Format(""))
	}
	if tk == nil {
		t.FailNow()
	}
	return tk
}

// TestCapabilityDefaultsPerClass: a scaffold of each debt class gets the
// capability sets its class's defaults derive from its stacks and watch
// lists. Only the build, framework and platform classes share tools
// between the stacks by default (the watched tools neither stack names);
// a language rewrite shares none, so its scaffold's watched cc is lacked
// by the audit image and asserted nowhere else.
func TestCapabilityDefaultsPerClass(t *testing.T) {
	t.Parallel()
	none := []string{}
	cases := []struct {
		class string
		want  effective
	}{
		{"language", effective{
			Shared: none,
			Have:   map[string][]string{"agent": {"gcc", "make", "cargo", "rustc"}, "audit": none, "behavioural": {"cargo", "rustc"}, "verification": {"gcc", "make", "cargo", "rustc"}},
			// The scaffold's behavioural image keeps gcc for Rust's linker,
			// observed (cc and gcc), so of the old stack only make is lacked.
			Lack: map[string][]string{"agent": none, "audit": {"gcc", "make", "cargo", "rustc", "cc"}, "behavioural": {"make"}, "verification": none},
			Obs:  map[string][]string{"agent": none, "audit": none, "behavioural": {"cc", "gcc"}, "verification": none},
		}},
		{"build", effective{
			Shared: []string{"cc", "gcc", "make"},
			Have: map[string][]string{"agent": {"autoconf", "automake", "libtool", "cmake", "cc", "gcc", "make"}, "audit": none, "behavioural": {"cmake", "cc", "gcc", "make"},
				"verification": {"autoconf", "automake", "libtool", "cmake", "cc", "gcc", "make"}},
			Lack: map[string][]string{"agent": none, "audit": {"autoconf", "automake", "libtool", "cmake", "cc", "gcc", "make"}, "behavioural": {"autoconf", "automake", "libtool"}, "verification": none},
			Obs:  map[string][]string{"agent": none, "audit": none, "behavioural": none, "verification": none},
		}},
		{"framework", effective{
			Shared: none,
			Have:   map[string][]string{"agent": {"go"}, "audit": none, "behavioural": {"go"}, "verification": {"go"}},
			// cc and gcc are watched (no C compiled) but declared no
			// stack's (stacks.shared: []), so only the audit image lacks them.
			Lack: map[string][]string{"agent": none, "audit": {"go", "cc", "gcc"}, "behavioural": none, "verification": none},
			Obs:  map[string][]string{"agent": none, "audit": none, "behavioural": none, "verification": none},
		}},
		// The platform scaffold's behavioural image keeps python3, watched:
		// State A runs on it when stage 2 checks it (srb build's identity run).
		{"platform", effective{
			Shared: none,
			Have:   map[string][]string{"agent": {"python3", "node"}, "audit": none, "behavioural": {"node"}, "verification": {"python3", "node"}},
			Lack:   map[string][]string{"agent": none, "audit": {"python3", "node"}, "behavioural": none, "verification": none},
			Obs:    map[string][]string{"agent": none, "audit": none, "behavioural": {"python3"}, "verification": none},
		}},
	}
	for _, c := range cases {
		t.Run(c.class, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), templates.ClassPrefixes[c.class]+"01-example")
			if _, err := templates.Scaffold(dir, filepath.Base(dir), c.class); err != nil {
				t.Fatal(err)
			}
			tk := loadOK(t, dir)
			if d := cmp.Diff(c.want, effectiveOf(tk), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("effective capabilities of a %s scaffold (-want +got):\n%s", c.class, d)
			}
			if got := tk.SharedOrigin(); c.class == "framework" && got != "declared" || c.class != "framework" && !strings.HasPrefix(got, "default for class "+c.class+": ") {
				t.Errorf("stacks.shared origin %q", got)
			}
			if got, want := tk.CapabilityOrigin("audit", "must_lack"), "default: stacks.old + stacks.new + stacks.shared + the tools every build configuration watches"; got != want {
				t.Errorf("audit.must_lack origin %q, want %q", got, want)
			}
		})
	}
}

// TestCapabilityDefaultsOfTasks pins the effective sets of the fixture and
// the real tasks, so a change to the defaults shows here as a diff.
func TestCapabilityDefaultsOfTasks(t *testing.T) {
	t.Parallel()
	none := []string{}
	cases := []struct {
		dir  string
		want effective
	}{
		{"../../testdata/tasks/lang90-tally-c-to-go", effective{
			Shared: none,
			Have:   map[string][]string{"agent": {"cc", "gcc", "make", "go"}, "audit": none, "behavioural": {"go"}, "verification": {"cc", "gcc", "make", "go"}},
			Lack:   map[string][]string{"agent": none, "audit": {"cc", "gcc", "make", "go"}, "behavioural": {"cc", "gcc", "make"}, "verification": none},
			Obs:    map[string][]string{"agent": none, "audit": none, "behavioural": none, "verification": none},
		}},
		{"../../tasks/lang01-cmark-c-to-rust", effective{
			Shared: none,
			Have: map[string][]string{"agent": {"cc", "gcc", "c++", "g++", "cmake", "rustc", "cargo"}, "audit": none, "behavioural": {"rustc", "cargo"},
				"verification": {"cc", "gcc", "c++", "g++", "cmake", "rustc", "cargo"}},
			// make is watched, in neither stack: the audit image lacks it.
			Lack: map[string][]string{"agent": none, "audit": {"cc", "gcc", "c++", "g++", "cmake", "rustc", "cargo", "make"}, "behavioural": none, "verification": none},
			Obs:  map[string][]string{"agent": none, "audit": none, "behavioural": {"cc", "gcc", "c++", "g++", "cmake"}, "verification": none},
		}},
		{"../../tasks/build01-libsodium-autotools-to-cmake", effective{
			// autoheader is in stacks.old and observed, so no tool is shared.
			Shared: []string{},
			Have: map[string][]string{"agent": {"autoreconf", "autoconf", "autoheader", "automake", "aclocal", "libtoolize", "cmake"}, "audit": none,
				"behavioural": {"cmake"}, "verification": {"autoreconf", "autoconf", "autoheader", "automake", "aclocal", "libtoolize", "cmake"}},
			Lack: map[string][]string{"agent": none, "audit": {"autoreconf", "autoconf", "autoheader", "automake", "aclocal", "libtoolize", "cmake"}, "behavioural": none, "verification": none},
			Obs:  map[string][]string{"agent": none, "audit": none, "behavioural": {"autoreconf", "autoconf", "autoheader", "automake", "aclocal", "libtoolize"}, "verification": none},
		}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			tk := loadOK(t, c.dir)
			if d := cmp.Diff(c.want, effectiveOf(tk), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("effective capabilities (-want +got):\n%s", d)
			}
		})
	}
}

// TestCapabilityOverrides: a task that writes a list or stacks.shared
// gets what it wrote, and the origin says "declared"; the lists it does
// not write still follow the defaults, from its declared shared tools.
func TestCapabilityOverrides(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "lang90-tally-c-to-go")
	src := "../../testdata/tasks/lang90-tally-c-to-go"
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, FileName)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, r := range [][2]string{
		{`stacks: {old: ["cc", "gcc", "make"], new: ["go"]}`, `stacks: {old: ["cc", "gcc", "make"], new: ["go"], shared: ["make"]}`},
		{`audit: {}`, `audit: {must_lack: ["gcc", "path:/usr/include/stdio.h"]}`},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("fixture lacks %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	tk := loadOK(t, dir)
	none := []string{}
	want := effective{
		Shared: []string{"make"},
		Have:   map[string][]string{"agent": {"cc", "gcc", "make", "go"}, "audit": none, "behavioural": {"go", "make"}, "verification": {"cc", "gcc", "make", "go"}},
		Lack:   map[string][]string{"agent": none, "audit": {"gcc", "path:/usr/include/stdio.h"}, "behavioural": {"cc", "gcc"}, "verification": none},
		Obs:    map[string][]string{"agent": none, "audit": none, "behavioural": none, "verification": none},
	}
	if d := cmp.Diff(want, effectiveOf(tk), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("effective capabilities (-want +got):\n%s", d)
	}
	for _, c := range []struct{ stage, list, want string }{
		{"audit", "must_lack", "declared"},
		{"behavioural", "must_lack", "default: stacks.old, minus what the image observes and what stacks.new or stacks.shared name"},
		{"audit", "must_have", "default: []"},
	} {
		if got := tk.CapabilityOrigin(c.stage, c.list); got != c.want {
			t.Errorf("%s.%s origin %q, want %q", c.stage, c.list, got, c.want)
		}
	}
	if got := tk.SharedOrigin(); got != "declared" {
		t.Errorf("stacks.shared origin %q, want declared", got)
	}
	if (&Task{}).Declares("images.audit.must_lack") {
		t.Error("a task not loaded from a file declares a field")
	}
}

// TestToolchainIs: a toolchain version matches a Debian version when it
// is that version (epoch aside), its upstream part, or that part with
// Debian's repack suffix; never another release.
func TestToolchainIs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, deb string
		ok        bool
	}{
		{"3.25.1", "3.25.1-1", true},
		{"1.63.0", "1.63.0+dfsg1-2", true},
		{"1.63.0+dfsg1-2", "1.63.0+dfsg1-2", true},
		{"2.39.5", "1:2.39.5-0+deb12u3", true},
		{"1:2.39.5-0+deb12u3", "1:2.39.5-0+deb12u3", true},
		{"3.11.2", "3.11.2-1+b1", true},
		{"12.2.0", "4:12.2.0-3", true},
		{"3.25", "3.25.1-1", false},
		{"1.63.0", "1.63.1+dfsg1-1", false},
		{"4.3", "4.3.1-1", false},
	} {
		if got := toolchainIs(c.want, c.deb); got != c.ok {
			t.Errorf("toolchainIs(%q, %q) = %v, want %v", c.want, c.deb, got, c.ok)
		}
	}
}

package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleLock() *Lock {
	d := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	return &Lock{
		Schema: LockSchema, Task: "lang90-tally-c-to-go", TaskCommit: strings.Repeat("a", 40), SourceDateEpoch: 946684800, BuildKit: "v0.26.3",
		Inputs: map[string]LockInput{
			"base":     {About: "debootstrap", Digest: d("1")},
			"go1.22.5": {About: "golang.org/toolchain@v0.0.1-go1.22.5.linux-amd64", Digest: "h1:LQChnsjY/4sr12W+7pci1Qg1+X/n7vmLOOaq2aTBG0w="},
			"helper":   {About: "srb's helper", Digest: d("2")},
		},
		Images: map[string]LockImage{
			"behavioural": {Digest: d("3"), LLB: d("4"), Inputs: map[string]string{"base": d("1"), "helper": d("2"), "packages": d("5"), "go1.22.5": "h1:LQChnsjY/4sr12W+7pci1Qg1+X/n7vmLOOaq2aTBG0w="}},
			"audit":       {Digest: d("6"), LLB: d("7"), Inputs: map[string]string{"base": d("1"), "packages": d("8")}},
		},
	}
}

func TestLockRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleLock()
	if err := WriteLock(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

// TestReadLockNamesFileAndField: a lockfile that breaks the schema is
// refused with the file and the JSON pointer of the field.
func TestReadLockNamesFileAndField(t *testing.T) {
	dir := t.TempDir()
	if err := WriteLock(dir, sampleLock()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, LockName)
	good, _ := os.ReadFile(path)
	for _, tc := range []struct{ from, to, want string }{
		{`"digest": "sha256:3333`, `"digest": "sha256:XY33`, path + " (images-lock): at /images/behavioural/digest: "},
		{`"srb.images-lock/1"`, `"srb.images-lock/0"`, "at /schema: "},
		{`"source_date_epoch": 946684800`, `"source_date_epoch": -1`, "at /source_date_epoch: "},
		{`"audit": {`, `"build": {`, "at /images: "},
		{`{`, `[`, "not JSON"},
	} {
		bad := strings.Replace(string(good), tc.from, tc.to, 1)
		if bad == string(good) {
			t.Fatalf("edit %q changed nothing", tc.from)
		}
		os.WriteFile(path, []byte(bad), 0o644)
		_, err := ReadLock(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: err = %v, want it to contain %q", tc.from, tc.to, err, tc.want)
		}
	}
	os.WriteFile(path, []byte(strings.Replace(string(good), `"srb.images-lock/1"`, `"srb.images-lock/2"`, 1)), 0o644)
	if _, err := ReadLock(dir); err == nil || !strings.Contains(err.Error(), "this srb reads srb.images-lock/1") {
		t.Errorf("another version: %v", err)
	}
}

func TestWriteLockRefusesAnInvalidLock(t *testing.T) {
	l := sampleLock()
	l.Images["audit"] = LockImage{Digest: "latest", LLB: l.Images["audit"].LLB, Inputs: l.Images["audit"].Inputs}
	dir := t.TempDir()
	err := WriteLock(dir, l)
	if err == nil || !strings.Contains(err.Error(), "at /images/audit/digest") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockName)); err == nil {
		t.Error("an invalid lock was written")
	}
}

// TestCompareNamesImageAndInput: a rebuild whose digest moved names the
// image, both digests and each input that moved, appeared or went.
func TestCompareNamesImageAndInput(t *testing.T) {
	want := sampleLock()
	got := sampleLock()
	b := got.Images["behavioural"]
	b.Digest = "sha256:" + strings.Repeat("9", 64)
	b.Inputs = map[string]string{"base": want.Images["behavioural"].Inputs["base"], "packages": "sha256:" + strings.Repeat("0", 64),
		"go1.22.5": want.Images["behavioural"].Inputs["go1.22.5"], "assets": "sha256:" + strings.Repeat("c", 64)}
	got.Images["behavioural"] = b
	a := got.Images["audit"]
	a.Digest = "sha256:" + strings.Repeat("e", 64)
	got.Images["audit"] = a
	ds := Compare(want, got)
	if len(ds) != 2 {
		t.Fatalf("drift %v, want 2 images", ds)
	}
	wantS := []string{
		"image audit: digest sha256:" + strings.Repeat("e", 64) + ", was sha256:" + strings.Repeat("6", 64) + "; no input moved, so the build is not reproducible",
		"image behavioural: digest sha256:" + strings.Repeat("9", 64) + ", was sha256:" + strings.Repeat("3", 64) +
			"; input helper moved from sha256:" + strings.Repeat("2", 64) + " to (gone)" +
			"; input packages moved from sha256:" + strings.Repeat("5", 64) + " to sha256:" + strings.Repeat("0", 64) +
			"; input assets is new (sha256:" + strings.Repeat("c", 64) + ")",
	}
	for i, d := range ds {
		if d.String() != wantS[i] {
			t.Errorf("drift %d:\n got %s\nwant %s", i, d, wantS[i])
		}
	}
	delete(got.Images, "audit")
	if ds := Compare(want, got); len(ds) != 2 || ds[0].Now != "(not built)" {
		t.Errorf("an image not rebuilt: %v", ds)
	}
}

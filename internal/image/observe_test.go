package image

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestObserveOnlyWhereTheHelperIs: a recording wrapper runs srb's helper,
// so observing in the agent or audit image is refused at compile time.
func TestObserveOnlyWhereTheHelperIs(t *testing.T) {
	tk := loadFixture(t)
	k := *tk
	k.Images = cloneImages(tk.Images)
	k.Images.Audit.Observe = []string{"cc"}
	_, err := Compile(&k, "audit", fakeInputs())
	if err == nil || !strings.Contains(err.Error(), "images.audit.observe: a recording wrapper runs srb's helper, which only the behavioural and verification images carry") {
		t.Errorf("err = %v", err)
	}
}

// TestObserveWrappersRecord builds a behavioural image that keeps gcc
// behind recording wrappers (images.behavioural.observe), loads it into
// Docker and compiles a C file in it: the wrapper is srb's helper's (the
// one the provenance module writes), the real compiler runs, and the
// image's log holds one kinds.Invocation per call, readable with
// kinds.ReadInvocations, with paths relative to the tree under test.
func TestObserveWrappersRecord(t *testing.T) {
	c, _ := requireEngine(t, "buildkit")
	d, err := engine.NewDocker()
	if err == nil {
		_, err = d.Version(t.Context())
	}
	if err != nil {
		if os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
			t.Fatalf("SRB_REQUIRE_ENGINES=1 but dockerd is not reachable: %v", err)
		}
		t.Skipf("skipping outside CI: dockerd is not reachable (%v); scripts/engines.sh starts it", err)
	}
	tk := loadFixture(t)
	in := prepareFixture(t, tk)
	if in.Helper == nil {
		t.Fatal("the fixture's inputs have no helper")
	}
	k := *tk
	k.ID = "lang91-observe-test" // its own tag in Docker, srb/lang91-observe-test:behavioural
	k.Images = cloneImages(tk.Images)
	b := k.Images.Stage("behavioural")
	// The verification image's packages (gcc, make, libc6-dev): the same
	// apt layer, which TestBuildFixture has built already. Every old-stack
	// tool they bring is observed, so none is left to be absent.
	b.Packages = append([]string(nil), tk.Images.Verification.Packages...)
	b.Observe = []string{"cc", "gcc", "make"}
	var lack []string
	for _, m := range b.MustLack {
		if !slices.Contains(b.Observe, m) {
			lack = append(lack, m)
		}
	}
	b.MustLack = lack
	ctx := t.Context()
	loaded := make(chan error, 1)
	bl := &Builder{Client: c, Progress: testWriter{t}, Mode: "plain"}
	_, err = bl.Build(ctx, &k, in, BuildOptions{Stages: []string{"behavioural"}, Load: func(_ context.Context, stage string) (io.WriteCloser, error) {
		pr, pw := io.Pipe()
		go func() {
			_, err := d.Load(ctx, pr)
			pr.CloseWithError(err)
			loaded <- err
		}()
		return pw, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	tree := k.Artifacts.Path
	script := "set -e; mkdir -p " + tree + "/src; cd " + tree + "; printf 'int main(void){return 0;}\\n' >src/m.c; " +
		"cc -O2 -c src/m.c -o m.o; gcc --version >/dev/null; head -2 " + ObserveDir + "/cc; cat " + ObserveLog
	res, err := d.Run(ctx, engine.Spec{Image: Tag(&k, "behavioural"), Cmd: []string{"/bin/sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	out := string(res.Stdout)
	if !strings.Contains(out, "# srb tool-provenance wrapper: logs this invocation, then runs the real cc.") {
		t.Errorf("the wrapper is not the provenance module's:\n%s", out)
	}
	log := filepath.Join(t.TempDir(), "observed.log")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "{") {
			lines = append(lines, l)
		}
	}
	os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	invs, err := kinds.ReadInvocations(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(invs) != 2 {
		t.Fatalf("%d invocations, want 2 (cc, gcc):\n%s", len(invs), out)
	}
	if invs[0].Tool != "cc" || invs[0].Dir != "." || !slices.Equal(invs[0].Inputs, []string{"src/m.c"}) || !slices.Equal(invs[0].Argv, []string{"-O2", "-c", "src/m.c", "-o", "m.o"}) {
		t.Errorf("cc: %+v", invs[0])
	}
	if invs[1].Tool != "gcc" || !slices.Equal(invs[1].Argv, []string{"--version"}) {
		t.Errorf("gcc: %+v", invs[1])
	}
}

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestStageImageRebuiltWhenAssetsChange: with real engines, the fixture's
// verification image that images.lock records is used as it is until a
// scenario under data/ is edited; then the lookup srb freeze, srb
// behavioural, srb verification and srb ladder share rebuilds it, naming
// the file, and the rebuilt image holds the edited scenario.
func TestStageImageRebuiltWhenAssetsChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	docker := requireEngines(t)
	taskDir := fixtureCopy(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	var log bytes.Buffer
	first := verificationImage(t, ctx, taskDir, &log)
	log.Reset()
	if again := verificationImage(t, ctx, taskDir, &log); again != first || strings.Contains(log.String(), "building it") {
		t.Fatalf("current image: %s then %s\n%s", first, again, log.String())
	}
	corpus := filepath.Join(taskDir, "data", "corpus")
	ents, err := os.ReadDir(corpus)
	if err != nil || len(ents) == 0 {
		t.Fatal(ents, err)
	}
	name := ents[0].Name()
	const edited = "an edited scenario\n"
	if err := os.WriteFile(filepath.Join(corpus, name), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	rebuilt := verificationImage(t, ctx, taskDir, &log)
	if rebuilt == first || !strings.Contains(log.String(), "data/corpus/"+name+" changed: building it") {
		t.Fatalf("after editing data/corpus/%s: %s (was %s)\n%s", name, rebuilt, first, log.String())
	}
	r, err := docker.Run(ctx, engine.Spec{Image: rebuilt, Cmd: []string{"cat", "/tests/verification/data/corpus/" + name}})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != edited {
		t.Errorf("the rebuilt image holds %q, want the edited scenario", r.Stdout)
	}
}

package source

import (
	"context"
	"os"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// realSources are the State A sources the real tasks use, one per registry
// kind, with the canonical digests srb pins them at and facts about what
// the archives hold, checked by hand once. Fetching each twice on a clean
// cache must give the same digest: the pin depends neither on the
// registry's compression nor on when it was fetched.
var realSources = []struct {
	name   string
	stateA task.StateA
	digest string
	files  int
	has    []string
}{
	{"gomod", task.StateA{Project: "go-yaml", Version: "v3.0.1", Source: task.Source{Kind: "gomod", Module: "gopkg.in/yaml.v3", Version: "v3.0.1"}},
		"68fb9284820eb8c0b2029dbf44f66a2fd70b8bcfce1824d3f55ed691423bce68", 24, []string{"LICENSE", "NOTICE", "yaml.go"}},
	{"npm", task.StateA{Project: "acorn", Version: "8.14.0", Source: task.Source{Kind: "npm", Package: "acorn", Version: "8.14.0"}},
		"0e8fe53573c2f2d046bf2716118853fd981f0439318cb7a68acb185a45503ac7", 10, []string{"LICENSE", "package.json", "dist/acorn.js"}},
	{"debian-libsodium", task.StateA{Project: "libsodium", Version: "1.0.18", Source: task.Source{Kind: "debian", Package: "libsodium", Version: "1.0.18-1+deb12u1"}},
		"7e6c4f1dac9d1f2ee17b18e00767598ad8fc794d23880793aeb8ec4962024f92", 563, []string{"LICENSE", "configure.ac", "src/libsodium/include/sodium.h"}},
	{"debian-cmark", task.StateA{Project: "cmark", Version: "0.30.2", Source: task.Source{Kind: "debian", Package: "cmark", Version: "0.30.2-6"}},
		"07381309109428a5ae9cc51d6518acc7fc04488354d06d9f6a94441354975f3b", 118, []string{"COPYING", "test/spec.txt", "src/cmark.h"}},
	// A source package with an extra orig component (orig-types-stylus)
	// whose .debian.tar.xz and component the mirror here does not serve:
	// only the orig tarball is fetched.
	{"debian-stylus", task.StateA{Project: "stylus", Version: "0.59.0", Source: task.Source{Kind: "debian", Package: "node-stylus", Version: "0.59.0+~0.48.38-2"}},
		"fdb9b663125a6b607410f3725a4db59e03cec770344317f6b238d52f4b347e9b", 1049, []string{"LICENSE", "lib/stylus.js", "test/cases/import.basic.styl"}},
}

// needRegistries skips tests that reach the module proxy, the npm
// registry or the Debian mirror when -short is given or SRB_OFFLINE=1.
func needRegistries(t *testing.T) {
	t.Helper()
	if testing.Short() || os.Getenv("SRB_OFFLINE") == "1" {
		t.Skip("reaches a registry (skipped with -short or SRB_OFFLINE=1)")
	}
}

func TestRealSources(t *testing.T) {
	needRegistries(t)
	for _, s := range realSources {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			a := s.stateA
			a.SHA256 = s.digest
			for i := range 2 { // two clean caches: the same digest
				c := &Cache{Dir: t.TempDir()}
				e, err := c.Materialise(context.Background(), a, ".", nil)
				if err != nil {
					t.Fatalf("fetch %d: %v", i, err)
				}
				if e.Digest != s.digest || e.FromCache {
					t.Fatalf("fetch %d: digest %s from cache %v, want %s fetched", i, e.Digest, e.FromCache, s.digest)
				}
				listing, err := Files(e.Archive)
				files := listing.Entries
				if err != nil {
					t.Fatal(err)
				}
				if len(files) != s.files {
					t.Errorf("%d files, want %d", len(files), s.files)
				}
				for _, want := range s.has {
					if !contains(files, want) {
						t.Errorf("archive lacks %s", want)
					}
				}
				// Offline from the cache: no client can run now.
				none := "/nonexistent/srb-test-no-client"
				again, err := c.Materialise(context.Background(), a, ".", &Env{Go: none, NPM: none, AptGet: none, Git: none})
				if err != nil || !again.FromCache || again.Digest != s.digest {
					t.Fatalf("from cache: %+v, %v", again, err)
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

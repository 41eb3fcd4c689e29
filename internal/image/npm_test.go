package image

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/buildkit/solver/pb"
)

// TestDiscoverNPMWithoutNPM: with no npm on PATH, the registry and proxy
// settings come from the npm_config_* variables npm itself reads, and
// the CA bundle from NODE_EXTRA_CA_CERTS.
func TestDiscoverNPMWithoutNPM(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "corp.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir) // no npm here
	t.Setenv("npm_config_registry", "https://registry.example.invalid/npm/")
	t.Setenv("NPM_CONFIG_HTTPS_PROXY", "http://proxy.example.invalid:3128")
	t.Setenv("npm_config_proxy", "")
	t.Setenv("NPM_CONFIG_PROXY", "")
	t.Setenv("npm_config_noproxy", "")
	t.Setenv("NPM_CONFIG_NOPROXY", "")
	t.Setenv("NODE_EXTRA_CA_CERTS", ca)
	h := DiscoverNPM(context.Background())
	want := map[string]string{"registry": "https://registry.example.invalid/npm/", "https-proxy": "http://proxy.example.invalid:3128"}
	if len(h.Settings) != len(want) {
		t.Errorf("settings %v, want %v", h.Settings, want)
	}
	for k, v := range want {
		if h.Settings[k] != v {
			t.Errorf("setting %s = %q, want %q", k, h.Settings[k], v)
		}
	}
	if h.CAFile != ca {
		t.Errorf("CA file %q, want %q", h.CAFile, ca)
	}

	// The input holds exactly those settings and the bundle's bytes.
	in, err := prepareNPMConfig(h, filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := os.ReadFile(filepath.Join(in.Dir, NPMConfigFile))
	if got, want := string(rc), "registry=https://registry.example.invalid/npm/\nhttps-proxy=http://proxy.example.invalid:3128\n"; got != want {
		t.Errorf("npmrc:\n%s\nwant:\n%s", got, want)
	}
	pem, _ := os.ReadFile(filepath.Join(in.Dir, NPMCAFile))
	if !bytes.Contains(pem, []byte("MIIB")) {
		t.Errorf("ca.pem is %q, want the host bundle", pem)
	}
	if !strings.HasPrefix(in.Digest, "sha256:") || in.Name != "npm-config" {
		t.Errorf("input %+v", in)
	}
}

// TestNPMStepMountsHostConfig: the npm step mounts the npm-config input
// read-only at NPMConfigMount and sets NODE_EXTRA_CA_CERTS and
// NPM_CONFIG_USERCONFIG for itself alone (the image's config does not
// carry them); the npm-config input is not an input of the lockfile; and
// the graph does not depend on the host's configuration (another host's
// input gives the same definition), so the image's LLB is the same on
// every machine.
func TestNPMStepMountsHostConfig(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	k := *tk
	k.Images = cloneImages(tk.Images)
	a := k.Images.Stage("audit")
	a.Packages = []string{"nodejs=18.20.4+dfsg-1~deb12u2", "npm=9.2.0~ds1-1"}
	a.NPM = []string{"semver@7.6.3"}
	in := fakeInputs()
	if _, err := Compile(&k, "audit", in); err == nil || !strings.Contains(err.Error(), "images.audit.npm") {
		t.Fatalf("compile without a prepared npm configuration: %v, want an error naming images.audit.npm", err)
	}
	def := func(digest string) []byte {
		in := fakeInputs()
		in.NPMConfig = &Input{Name: "npm-config", Digest: digest, About: "the host's npm configuration"}
		c, err := Compile(&k, "audit", in)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Config.Config.Env {
			if strings.HasPrefix(e, "NODE_EXTRA_CA_CERTS=") || strings.HasPrefix(e, "NPM_CONFIG_") {
				t.Errorf("image config carries %s: it belongs to the npm step alone", e)
			}
		}
		d, err := Marshal(t.Context(), c.Image)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, raw := range d.Def {
			var op pb.Op
			if err := op.UnmarshalVT(raw); err != nil {
				t.Fatal(err)
			}
			ex := op.GetExec()
			if ex == nil || !strings.Contains(strings.Join(ex.Meta.Args, " "), "npm install --global") {
				continue
			}
			found = true
			env := strings.Join(ex.Meta.Env, " ")
			for _, want := range []string{"NODE_EXTRA_CA_CERTS=" + NPMConfigMount + "/" + NPMCAFile, "NPM_CONFIG_USERCONFIG=" + NPMConfigMount + "/" + NPMConfigFile} {
				if !strings.Contains(env, want) {
					t.Errorf("npm step env %q lacks %s", env, want)
				}
			}
			var mounted bool
			for _, m := range ex.Mounts {
				if m.Dest == NPMConfigMount {
					mounted = true
					if !m.Readonly {
						t.Errorf("%s is mounted writable", NPMConfigMount)
					}
				}
			}
			if !mounted {
				t.Errorf("npm step has no mount at %s", NPMConfigMount)
			}
			if !strings.Contains(strings.Join(ex.Meta.Args, " "), "-o -path "+NPMConfigMount+" ") {
				t.Errorf("npm step's time clamp does not prune the read-only mount: %q", ex.Meta.Args)
			}
		}
		if !found {
			t.Fatal("no npm install step in the audit image's graph")
		}
		return bytes.Join(d.Def, []byte{0})
	}
	if !bytes.Equal(def("sha256:"+strings.Repeat("7", 64)), def("sha256:"+strings.Repeat("8", 64))) {
		t.Error("the audit image's graph depends on the host's npm configuration")
	}
	for _, n := range StageInputs(&k, "audit") {
		if n == "npm-config" {
			t.Error("npm-config is a lockfile input: the host's configuration is not part of the image")
		}
	}
}

// TestBuildNPMLayer builds an audit image with Debian's nodejs and npm and
// an npm package installed globally for real (images.audit.npm), through
// the registry the host's npm uses and the host's CA bundle: the probes
// find the package's command and no trace of the mounted configuration,
// and a rebuild with no cache reproduces the digest (the npm layer's
// times are clamped to source_date_epoch).
//
// Debian's npm is about 400 packages: the apt step alone takes about ten
// minutes on two cores, so this test runs only when
// SRB_SLOW_IMAGE_TESTS=1 (docs/OPERATIONS.md says how).
func TestBuildNPMLayer(t *testing.T) {
	if os.Getenv("SRB_SLOW_IMAGE_TESTS") != "1" {
		t.Skip("SRB_SLOW_IMAGE_TESTS=1 runs it (about 25 minutes cold on two cores): SRB_SLOW_IMAGE_TESTS=1 go test -timeout 60m -run TestBuildNPMLayer ./internal/image")
	}
	c, version := requireEngine(t, "buildkit")
	tk := loadFixture(t)
	k := *tk
	k.Images = cloneImages(tk.Images)
	a := k.Images.Stage("audit")
	a.Packages = []string{"nodejs=18.20.4+dfsg-1~deb12u2", "npm=9.2.0~ds1-1"}
	a.NPM = []string{"semver@7.6.3"}
	a.MustHave = []string{"semver", "node", "path:/usr/local/lib/node_modules/semver/package.json"}
	a.MustLack = append(append([]string(nil), a.MustLack...), "path:"+NPMConfigMount, "path:/root/.npm", "path:/root/.npmrc")
	in := prepareFixture(t, &k)
	if in.NPMConfig == nil {
		t.Fatal("Prepare made no npm configuration for a task that declares npm packages")
	}
	t.Logf("npm config: %s", in.NPMConfig.About)
	b := &Builder{Client: c, Progress: testWriter{t}, Mode: "plain"}
	start := time.Now()
	built, err := b.Build(t.Context(), &k, in, BuildOptions{Stages: []string{"audit"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build with npm: %v", time.Since(start))
	first := NewLock(&k, version, in, built)
	if !strings.HasPrefix(first.Images["audit"].Digest, "sha256:") {
		t.Fatalf("digest %q", first.Images["audit"].Digest)
	}
	// images.lock records the npm tree: semver itself at the version
	// asked for, with the digest of its files.
	var semver *NPMPackage
	for i, p := range first.Images["audit"].NPM {
		if p.Path == "node_modules/semver" {
			semver = &first.Images["audit"].NPM[i]
		}
	}
	if semver == nil || semver.Name != "semver" || semver.Version != "7.6.3" || !strings.HasPrefix(semver.Integrity, "sha256:") {
		t.Errorf("the lock's npm tree %+v lacks semver@7.6.3 with its integrity", first.Images["audit"].NPM)
	}
	start = time.Now()
	again, err := b.Build(t.Context(), &k, in, BuildOptions{Stages: []string{"audit"}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rebuild with no cache: %v", time.Since(start))
	if ds := Compare(first, NewLock(&k, version, in, again)); len(ds) > 0 {
		for _, d := range ds {
			t.Errorf("npm layer not reproducible: %s", d)
		}
	}
	t.Logf("audit image with npm: %s (reproduced with no cache)", first.Images["audit"].Digest)
}

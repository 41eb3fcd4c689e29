package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// requireEngine returns a Docker runner. Without an engine it skips,
// saying so, unless SRB_REQUIRE_ENGINES=1 (CI), where it fails.
func requireEngine(t *testing.T, name string) *Docker {
	t.Helper()
	if name != "docker" {
		t.Fatalf("requireEngine: unknown engine %q", name)
	}
	d, err := NewDocker()
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, err = d.Version(ctx)
	}
	if err != nil {
		if os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
			t.Fatalf("SRB_REQUIRE_ENGINES=1 but docker is not reachable: %v (scripts/engines.sh starts it)", err)
		}
		t.Skipf("skipping outside CI: docker is not reachable (%v); scripts/engines.sh starts it", err)
	}
	return d
}

// hello is a static program: it prints its arguments and exits with the
// status its first argument names.
const hello = `package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	fmt.Println(os.Args[1:])
	fmt.Fprintln(os.Stderr, "to stderr")
	n, _ := strconv.Atoi(os.Args[1])
	os.Exit(n)
}
`

// helloArchive builds hello statically and wraps it as a docker-archive
// tar of one layer, tagged name.
func helloArchive(t *testing.T, name string) []byte {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(hello), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bin, _ := os.ReadFile(filepath.Join(dir, "hello"))
	var layer bytes.Buffer
	lw := tar.NewWriter(&layer)
	lw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg})
	lw.Write(bin)
	lw.Close()
	sum := sha256.Sum256(layer.Bytes())
	diffID := "sha256:" + hex.EncodeToString(sum[:])
	cfg, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Entrypoint": []string{"/hello"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	csum := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(csum[:]) + ".json"
	man, _ := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{name}, "Layers": []string{"layer.tar"}}})
	var out bytes.Buffer
	w := tar.NewWriter(&out)
	for _, f := range []struct {
		name string
		data []byte
	}{{cfgName, cfg}, {"layer.tar", layer.Bytes()}, {"manifest.json", man}} {
		w.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		w.Write(f.data)
	}
	w.Close()
	return out.Bytes()
}

// TestDockerLoadRun loads an image through the API (as srb build --load
// does) and runs it with no network, reading its exit code and streams.
func TestDockerLoadRun(t *testing.T) {
	d := requireEngine(t, "docker")
	v, err := d.Version(t.Context())
	if err != nil || !strings.Contains(v, "API") {
		t.Fatalf("version %q, %v", v, err)
	}
	names, err := d.Load(t.Context(), bytes.NewReader(helloArchive(t, "srb-test/hello:1")))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "srb-test/hello:1" {
		t.Errorf("loaded %v, want [srb-test/hello:1]", names)
	}
	r, err := Limit(d, 1).Run(t.Context(), Spec{Image: "srb-test/hello:1", Cmd: []string{"3", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 3 || string(r.Stdout) != "[3 x]\n" || string(r.Stderr) != "to stderr\n" {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 3, \"[3 x]\\n\", \"to stderr\\n\"", r.ExitCode, r.Stdout, r.Stderr)
	}
}

// counting is a Runner that records how many Runs overlap.
type counting struct {
	Runner
	now, max atomic.Int32
}

func (c *counting) Run(ctx context.Context, s Spec) (*Result, error) {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for {
		m := c.max.Load()
		if n <= m || c.max.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond)
	return &Result{}, nil
}

// TestLimit: no more than n Runs at once through Limit.
func TestLimit(t *testing.T) {
	t.Parallel()
	c := &counting{}
	r := Limit(c, 2)
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() { r.Run(t.Context(), Spec{}); done <- struct{}{} }()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
	if m := c.max.Load(); m != 2 {
		t.Errorf("at most %d ran at once, want 2", m)
	}
}

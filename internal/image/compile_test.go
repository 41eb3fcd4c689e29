package image

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/buildkit/solver/pb"

	"github.com/swe-refactor-bench/srb/internal/task"
)

const fixture = "../../testdata/tasks/lang90-tally-c-to-go"

func loadFixture(t testing.TB) *task.Task {
	t.Helper()
	tk, ps := task.Load(fixture)
	if len(ps) > 0 {
		t.Fatalf("load fixture: %v", ps)
	}
	return tk
}

// fakeInputs stand for prepared inputs with fixed digests, so compiling
// needs no daemon, network or debootstrap.
func fakeInputs() *Inputs {
	return &Inputs{
		Base: Input{Name: "base", Digest: "sha256:" + strings.Repeat("b", 64), About: "debootstrap --variant=minbase bookworm --include=ca-certificates"},
		Go: map[string]Input{"1.22.5": {Name: "go1.22.5", Digest: "h1:fakegotoolchainsum=", About: "golang.org/toolchain@v0.0.1-go1.22.5.linux-amd64",
			Images: map[string]string{GoRoot: "sha256:" + strings.Repeat("9", 64)}}},
		StateA:      Input{Name: "state-a", Digest: "sha256:" + strings.Repeat("a", 64), About: "state A local tally-1.0 as a git repository with one commit"},
		StartCommit: strings.Repeat("c", 40),
		Assets:      &Input{Name: "assets", Digest: "sha256:" + strings.Repeat("d", 64), About: "the task's modules, data, truth folders"},
		Helper:      &Input{Name: "helper", Digest: "sha256:" + strings.Repeat("f", 64), About: "srb's helper, built from ./cmd/srb-helper"},
		Notice:      []byte("tally 1.0\nMIT\n"),
		Files: map[string]Input{
			"agent":        {Name: "files-agent", Digest: "sha256:" + strings.Repeat("1", 64), About: "the agent image's mount points and NOTICE entry"},
			"audit":        {Name: "files-audit", Digest: "sha256:" + strings.Repeat("2", 64), About: "the audit image's mount points and NOTICE entry"},
			"behavioural":  {Name: "files-behavioural", Digest: "sha256:" + strings.Repeat("3", 64), About: "the behavioural image's mount points and NOTICE entry"},
			"verification": {Name: "files-verification", Digest: "sha256:" + strings.Repeat("4", 64), About: "the verification image's mount points and NOTICE entry"},
		},
		TaskCommit: strings.Repeat("e", 40),
	}
}

func compileAll(t testing.TB, tk *task.Task, in *Inputs) map[string]*Compiled {
	out := map[string]*Compiled{}
	for _, s := range task.StageNames {
		c, err := Compile(tk, s, in)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = c
	}
	return out
}

// TestMarshalDeterminism: the same task gives the same Definition bytes,
// 100 times over, for every stage image and its probes.
func TestMarshalDeterminism(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	in := fakeInputs()
	for _, s := range task.StageNames {
		var first [][]byte
		for i := 0; i < 100; i++ {
			c, err := Compile(tk, s, in)
			if err != nil {
				t.Fatal(err)
			}
			def, err := Marshal(t.Context(), c.Image)
			if err != nil {
				t.Fatal(err)
			}
			pdef, err := Marshal(t.Context(), c.Probe)
			if err != nil {
				t.Fatal(err)
			}
			all := append(append([][]byte{}, def.Def...), pdef.Def...)
			if i == 0 {
				first = all
				continue
			}
			if len(all) != len(first) {
				t.Fatalf("%s: run %d has %d ops, run 0 had %d", s, i, len(all), len(first))
			}
			for j := range all {
				if !bytes.Equal(all[j], first[j]) {
					t.Fatalf("%s: run %d op %d differs", s, i, j)
				}
			}
		}
	}
}

// TestOpSummary pins every vertex of the fixture's four images and their
// names (SRB_UPDATE=1 rewrites testdata/TestOpSummary.golden).
func TestOpSummary(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	var b strings.Builder
	cs := compileAll(t, tk, fakeInputs())
	for _, s := range task.StageNames {
		def, err := Marshal(t.Context(), cs[s].Image)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Summary(def)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("== " + s + "\n" + sum)
	}
	golden(t, b.String())
}

func golden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", t.Name()+".golden")
	if os.Getenv("SRB_UPDATE") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (SRB_UPDATE=1 writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (SRB_UPDATE=1 rewrites it):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestSharedVertices: the Go layer and the package layer are the same
// vertices in every image that declares the same Go and packages, so
// BuildKit builds them once.
func TestSharedVertices(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	ops := func(tk *task.Task) map[string]map[string]bool {
		out := map[string]map[string]bool{}
		for s, c := range compileAll(t, tk, fakeInputs()) {
			def, err := Marshal(t.Context(), c.Image)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Ops(def)
			if err != nil {
				t.Fatal(err)
			}
			out[s] = map[string]bool{}
			for d := range m {
				out[s][d.String()] = true
			}
		}
		return out
	}
	shared := func(o map[string]map[string]bool, a, b string) int {
		n := 0
		for d := range o[a] {
			if o[b][d] {
				n++
			}
		}
		return n
	}
	o := ops(tk)
	// The base and the Go layer.
	if n := shared(o, "agent", "verification"); n < 2 {
		t.Errorf("agent and verification share %d vertices, want at least 2", n)
	}
	// The base, the Go layer, the helper's source and layer.
	if n := shared(o, "behavioural", "verification"); n < 4 {
		t.Errorf("behavioural and verification share %d vertices, want at least 4", n)
	}
	// With the same packages, the apt run and its layer are shared too.
	same := *tk
	same.Images = cloneImages(tk.Images)
	same.Images.Verification.Packages = append([]string(nil), tk.Images.Agent.Packages...)
	if n := shared(ops(&same), "agent", "verification"); n < 4 {
		t.Errorf("with the same packages, agent and verification share %d vertices, want at least 4", n)
	}
}

// TestOpInspection looks inside the ops: the audit image runs no apt, the
// agent image copies State A owned by the agent and never the assets,
// and every vertex is named after a task field.
func TestOpInspection(t *testing.T) {
	t.Parallel()
	tk := loadFixture(t)
	cs := compileAll(t, tk, fakeInputs())
	for _, s := range task.StageNames {
		def, err := Marshal(t.Context(), cs[s].Image)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Ops(def)
		if err != nil {
			t.Fatal(err)
		}
		var locals []string
		layers := 0
		for d, op := range m {
			name := def.Metadata[d].Description["llb.customname"]
			if mg, ok := op.Op.(*pb.Op_Merge); ok {
				layers += len(mg.Merge.Inputs)
			}
			if _, ok := op.Op.(*pb.Op_Exec); ok && (strings.HasPrefix(name, "agent.user") || strings.Contains(name, ".observe: ")) {
				layers++
			}
			if _, out := op.Op.(*pb.Op_Source); !out && len(op.Inputs) == 1 && name == "" && op.Op == nil {
				continue // the output reference
			}
			if op.Op != nil && name == "" {
				t.Errorf("%s: an unnamed %s vertex", s, opKind(op))
			}
			if src, ok := op.Op.(*pb.Op_Source); ok && strings.HasPrefix(src.Source.Identifier, "local://") {
				locals = append(locals, strings.TrimPrefix(src.Source.Identifier, "local://"))
			}
			if e, ok := op.Op.(*pb.Op_Exec); ok && s == "audit" {
				t.Errorf("audit: runs %v; the audit image installs nothing", e.Exec.Meta.Args)
			}
			if f, ok := op.Op.(*pb.Op_File); ok && s == "agent" {
				for _, a := range f.File.Actions {
					if c := a.GetCopy(); c != nil && c.Dest == tk.Artifacts.Path && (c.Owner == nil || c.Owner.User.GetByID() != AgentUID) {
						t.Errorf("agent: state A is copied to %s without the agent's uid", c.Dest)
					}
				}
			}
		}
		if len(cs[s].Config.History) != layers {
			t.Errorf("%s: %d history entries for %d layers", s, len(cs[s].Config.History), layers)
		}
		has := func(n string) bool {
			for _, l := range locals {
				if l == n {
					return true
				}
			}
			return false
		}
		if s == "agent" && (has("assets") || has("helper")) {
			t.Errorf("agent: reads %v; the agent image holds nothing of the grader", locals)
		}
		if s != "agent" && has("state-a") {
			t.Errorf("%s: reads state A; only the agent image holds it", s)
		}
	}
}

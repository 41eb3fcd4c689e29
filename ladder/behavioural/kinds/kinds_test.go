package kinds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/testenv"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/schema"
)

// TestMain lets the test binary be the helper (SRB_KINDS_HELPER=1) and a
// small HTTP server (SRB_KINDS_SERVE=addr) for the modules it runs.
func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	if addr := os.Getenv("SRB_KINDS_SERVE"); addr != "" {
		if os.Getenv(EnvProbe) != "" {
			probe()
		}
		serve(addr)
		return
	}
	// The runner passes on an allow-listed environment only, and the
	// jail exactly one variable: the helper is also known by its command.
	helperCmd := len(os.Args) > 1 && slices.Contains([]string{"run", "jail", "wrap", "suite"}, os.Args[1])
	if os.Getenv("SRB_KINDS_HELPER") == "1" || helperCmd {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv("SRB_KINDS_HELPER", "1") // for every process the tests start
	os.Exit(m.Run())
}

func serve(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile(os.Getenv("VARIANT"))
		w.Header().Set("X-Variant", string(b))
		fmt.Fprintf(w, "you reached %s at %s\n", r.Host, time.Now().UTC().Format(time.RFC3339))
	})
	mux.HandleFunc("/teapot", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})
	_ = http.ListenAndServe(addr, mux)
}

// tree writes files (path → content; a leading "+x " marks executables).
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		mode := os.FileMode(0o644)
		if rest, ok := strings.CutPrefix(c, "+x "); ok {
			c, mode = rest, 0o755
		}
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// decl is a task whose program is a shell script, built by copying it,
// with one module of every helper kind.
func decl(t *testing.T, taskDir string, withSymbols bool) *behavioural.Declaration {
	tree(t, taskDir, map[string]string{
		"data/corpus/a.txt": "alpha\n",
		"data/corpus/b.txt": "beta gamma\n",
	})
	mod := func(id, kind string, params any) behavioural.DeclaredModule {
		return behavioural.DeclaredModule{ID: id, Kind: kind, About: id, Weight: 1, Timeout: 60 * time.Second, Params: raw(params)}
	}
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {
			Original: [][]string{{"cp", "prog.sh", "prog"}, {"chmod", "+x", "prog"}},
			Outputs:  []string{"prog", "lib", "variant"},
			Watch:    []string{"cp", "chmod"},
		}},
		StateB: [][]string{{"cp", "prog.sh", "prog"}, {"chmod", "+x", "prog"}},
		Modules: []behavioural.DeclaredModule{
			mod("build", "build", BuildParams{}),
			mod("cmd", "command", map[string]any{
				"normalise": []any{map[string]any{"builtin": "temp-paths"}, map[string]any{"pattern": "[0-9]{4,}", "replace": "<N>"}},
				"cases": []any{
					map[string]any{"id": "stdin", "argv": []string{"${BUILD}/prog", "count"}, "stdin": "one two\n"},
					map[string]any{"id": "env", "argv": []string{"${BUILD}/prog", "env"}, "env": map[string]string{"WHO": "world"}},
					map[string]any{"id": "files", "argv": []string{"${BUILD}/prog", "copy"}, "files": map[string]string{"in.txt": "payload\n"}, "produces": []string{"out.txt"}},
					map[string]any{"id": "where", "argv": []string{"${BUILD}/prog", "where"}},
					map[string]any{"id": "fail", "argv": []string{"${BUILD}/prog", "fail"}},
				},
				"corpus": map[string]any{"dir": "data/corpus", "glob": "*.txt", "argv": []string{"${BUILD}/prog", "count"}, "stdin": true},
			}),
			mod("web", "http", map[string]any{
				"server": map[string]any{
					"argv":  []string{os.Args[0]},
					"env":   map[string]string{"SRB_KINDS_SERVE": "127.0.0.1:${PORT}", "VARIANT": "${BUILD}/variant"},
					"ready": map[string]any{"target": "/", "status": 200},
				},
				"normalise": []any{map[string]any{"builtin": "timestamps"}, map[string]any{"builtin": "ports"}, map[string]any{"builtin": "temp-paths"}},
				"exchanges": []any{
					map[string]any{"id": "root", "target": "/"},
					map[string]any{"id": "teapot", "method": "POST", "target": "/teapot", "body": "x"},
					map[string]any{"id": "raw", "raw": "GET /teapot HTTP/1.0\r\n\r\n"},
				},
				"compare": []string{"status", "headers", "body"},
			}),
			mod("install", "tree", map[string]any{
				"install": [][]string{{"/bin/sh", "-c", "mkdir -p ${PREFIX}/bin && cp prog ${PREFIX}/bin/ && ln -s prog ${PREFIX}/bin/alias"}},
			}),
			// The same install with the program opaque: its changed bytes
			// are not compared, its presence, type and mode are.
			mod("install-opaque", "tree", map[string]any{
				"install": [][]string{{"/bin/sh", "-c", "mkdir -p ${PREFIX}/bin && cp prog ${PREFIX}/bin/ && ln -s prog ${PREFIX}/bin/alias"}},
				"opaque":  []string{"bin/*"},
			}),
			mod("digests", "digests", map[string]any{
				"steps": [][]string{{"/bin/sh", "-c", "${BUILD}/prog count < ${DATA}/data/corpus/a.txt > a.out"}},
				"files": []string{"a.out", "${BUILD}/prog"},
			}),
			mod("prov", "provenance", map[string]any{"rules": []any{
				map[string]any{"id": "copied-source", "tools": []string{"cp"}, "inputs": "*.sh", "expect": "ran"},
				map[string]any{"id": "no-chmod", "tools": []string{"chmod"}, "expect": "never"},
			}}),
		},
	}
	if withSymbols {
		d.Configurations["default"] = behavioural.Configuration{
			Original: append(d.Configurations["default"].Original, []string{"cc", "-shared", "-fPIC", "-o", "lib/libt.so", "lib/t.c"}),
			Outputs:  d.Configurations["default"].Outputs, Watch: []string{"cp", "chmod", "cc"},
		}
		d.StateB = append(d.StateB, []string{"cc", "-shared", "-fPIC", "-o", "lib/libt.so", "lib/t.c"})
		d.Modules = append(d.Modules, mod("abi", "symbols", map[string]any{"libraries": []string{"lib/libt.so"}, "match": "^tally_"}))
	}
	return d
}

const prog = `+x #!/bin/sh
case "$1" in
count) wc -w | tr -d ' ' ;;
env) echo "hello $WHO from $PWD" ;;
copy) tr a-z A-Z < in.txt > out.txt; echo copied ;;
where) echo "built at $0, pid 12345" ;;
fail) echo "no such thing" >&2; exit 3 ;;
esac
`

const libSrc = `int tally_count(void) { return 1; }
int tally_data = 3;
static int hidden(void) { return 2; }
`

func stateA(t *testing.T, dir string, withSymbols bool) {
	files := map[string]string{"prog.sh": prog, "variant": "a"}
	if withSymbols {
		files["lib/t.c"] = libSrc
	} else {
		files["lib/.keep"] = ""
	}
	tree(t, dir, files)
}

func checksByVerdict(st *result.Stage) (failing []string, passing int) {
	for _, c := range st.Checks {
		if c.OK() {
			passing++
		} else {
			failing = append(failing, c.ID+": "+c.Summary)
		}
	}
	return failing, passing
}

// TestKinds freezes a task with a module of every helper kind on a State A
// that is a shell script, then checks a submission that differs in one
// behaviour per kind: exactly the observing checks fail, with readable
// differences.
func TestKinds(t *testing.T) {
	_, err := exec.LookPath("cc")
	withSymbols := err == nil
	root := t.TempDir()
	taskDir, original, sub := filepath.Join(root, "task"), filepath.Join(root, "a"), filepath.Join(root, "sub")
	d := decl(t, taskDir, withSymbols)
	stateA(t, original, withSymbols)
	helper := []string{os.Args[0]}
	fz := &behavioural.Freezer{
		Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl:   d, Helper: helper, Provenance: behavioural.Provenance{StateA: "digest", Where: "host"},
	}
	rep, err := fz.Freeze(context.Background())
	if err != nil {
		t.Fatalf("freeze: %v", err)
	}
	if len(rep.Written) != len(d.Modules) {
		t.Errorf("wrote %d truth files for %d modules", len(rep.Written), len(d.Modules))
	}
	tr, err := behavioural.ReadTruth(behavioural.TruthPath(taskDir, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]any{
		"stdin/stdout": "2\n", "env/stdout": "hello world from <WORK>\n", "files/files": map[string]any{"out.txt": "sha256:" + sha("PAYLOAD\n")},
		"where/stdout": "built at <BUILD>/prog, pid <N>\n", "fail/exit": 3.0, "fail/stderr": "no such thing\n", "b/stdout": "2\n",
	} {
		if diff := cmp.Diff(want, tr.Observations[id]); diff != "" {
			t.Errorf("truth %s (-want +got):\n%s", id, diff)
		}
	}
	web, _ := behavioural.ReadTruth(behavioural.TruthPath(taskDir, "web"))
	if got := web.Observations["root/body"]; got != "you reached 127.0.0.1:<PORT> at <TIME>\n" {
		t.Errorf("normalised body = %q", got)
	}
	if got := web.Observations["teapot/status"]; got != 418.0 {
		t.Errorf("teapot status = %v", got)
	}
	opaque, _ := behavioural.ReadTruth(behavioural.TruthPath(taskDir, "install-opaque"))
	if diff := cmp.Diff(map[string]any{"type": "file", "mode": "0755"}, opaque.Observations["path:bin/prog"]); diff != "" {
		t.Errorf("opaque file's truth (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": "symlink", "mode": "0777", "target": "prog"}, opaque.Observations["path:bin/alias"]); diff != "" {
		t.Errorf("opaque glob matching a link (-want +got):\n%s", diff)
	}
	prov, _ := behavioural.ReadTruth(behavioural.TruthPath(taskDir, "prov"))
	if diff := cmp.Diff(map[string]any{"copied-source": true, "no-chmod": true}, prov.Observations); diff != "" {
		t.Errorf("provenance truth (-want +got):\n%s", diff)
	}
	if _, ok := prov.Provenance.Toolchains["cp"]; !ok {
		t.Errorf("toolchains = %v", prov.Provenance.Toolchains)
	}

	// The same tree as a submission: 1.0 everywhere but the provenance
	// rule it breaks (it runs chmod, which the rule forbids).
	stateA(t, sub, withSymbols)
	check := func() *result.Stage {
		t.Helper()
		work := filepath.Join(root, "check-"+fmt.Sprint(time.Now().UnixNano()))
		s, err := d.Suite(behavioural.ModeCheck, work, filepath.Join(taskDir, behavioural.TruthDir), helper)
		if err != nil {
			t.Fatal(err)
		}
		r := &behavioural.Runner{Repo: sub, Original: original, Work: work}
		st, err := r.Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	failing, _ := checksByVerdict(check())
	if diff := cmp.Diff([]string{"prov/no-chmod: chmod ran while the submission built: chmod +x prog"}, failing); diff != "" {
		t.Errorf("identical submission (-want +got):\n%s", diff)
	}

	// One behaviour changed per kind.
	changed := strings.NewReplacer(`wc -w`, `wc -l`, `exit 3`, `exit 4`, `"hello $WHO`, `"hi $WHO`).Replace(prog)
	tree(t, sub, map[string]string{"prog.sh": changed, "variant": "b"})
	if withSymbols {
		tree(t, sub, map[string]string{"lib/t.c": strings.Replace(libSrc, "int tally_data = 3;", "", 1)})
	}
	failing, _ = checksByVerdict(check())
	want := []string{
		"cmd/stdin/stdout: want \"2\\n\", got \"1\\n\"",
		"cmd/env/stdout: want \"hello world from <WORK>\\n\", got \"hi world from <WORK>\\n\"",
		"cmd/fail/exit: want 3, got 4",
		"cmd/b/stdout: want \"2\\n\", got \"1\\n\"",
		"install/path:bin/prog: digest: want \"sha256:",
		"web/root/headers: missing \"x-variant: a\"; unexpected \"x-variant: b\"",
		"digests/${BUILD}/prog: want \"sha256:",
		"prov/no-chmod: chmod ran while the submission built: chmod +x prog",
	}
	if withSymbols {
		want = append(want, "abi/lib/libt.so: missing \"tally_data@ object\"")
	}
	if len(failing) != len(want) {
		t.Errorf("failing checks:\n%s\nwant %d", strings.Join(failing, "\n"), len(want))
	}
	for _, w := range want {
		if !slices.ContainsFunc(failing, func(f string) bool { return strings.HasPrefix(f, w) }) {
			t.Errorf("no failing check starts with %q; failing:\n%s", w, strings.Join(failing, "\n"))
		}
	}
}

func sha(s string) string {
	f := filepath.Join(os.TempDir(), fmt.Sprintf("srb-sha-%d", time.Now().UnixNano()))
	os.WriteFile(f, []byte(s), 0o644)
	defer os.Remove(f)
	return strings.TrimPrefix(fileDigest(f), "sha256:")
}

// TestSchemaMatchesGo: every kind of #ModuleKinds has a Go params type
// and back, and every field the schema declares for a kind is a JSON field
// of its Go type (Decode refuses unknown fields, so a field added on one
// side only would break every task using it).
func TestSchemaMatchesGo(t *testing.T) {
	v := cuecontext.New().CompileBytes(schema.TaskCUE())
	if v.Err() != nil {
		t.Fatal(v.Err())
	}
	kinds := v.LookupPath(cue.ParsePath("#ModuleKinds"))
	it, err := kinds.Fields(cue.Definitions(false), cue.Optional(true))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for it.Next() {
		name := it.Selector().Unquoted()
		names = append(names, name)
		gt, ok := Kinds()[name]
		if !ok {
			t.Errorf("kind %s has no Go params type in Kinds()", name)
			continue
		}
		checkFields(t, name, it.Value(), reflect.TypeOf(gt).Elem())
	}
	for k := range Kinds() {
		if !slices.Contains(names, k) {
			t.Errorf("Go kind %s is not in #ModuleKinds", k)
		}
	}
}

func checkFields(t *testing.T, where string, v cue.Value, gt reflect.Type) {
	t.Helper()
	tags := map[string]reflect.Type{}
	var collect func(reflect.Type)
	collect = func(rt reflect.Type) {
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			if f.Anonymous {
				collect(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tags[name] = f.Type
		}
	}
	collect(gt)
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return // a disjunction (#Normaliser): checked through its Go type's use
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		ft, ok := tags[name]
		if !ok {
			t.Errorf("%s.%s is in the schema but not in Go type %s", where, name, gt.Name())
			continue
		}
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			fv := it.Value()
			if fv.IncompleteKind() == cue.ListKind {
				fv = fv.LookupPath(cue.MakePath(cue.AnyIndex))
			}
			checkFields(t, where+"."+name, fv, ft)
		}
	}
}

func TestDifference(t *testing.T) {
	for _, tt := range []struct {
		want, got any
		say       string
	}{
		{"1 3 14\n", "1 3 15\n", `want "1 3 14\n", got "1 3 15\n"`},
		{"a\nb\n", "a\nc\n", `line 2: want "b\n", got "c\n"`},
		{"a\n", "", `want "a\n", got nothing`},
		{2.0, 1.0, "want 2, got 1"},
		{map[string]any{"x": "1", "y": 2.0}, map[string]any{"x": "2", "z": true}, `x: want "1", got "2"; y: missing (want 2); z: unexpected true`},
		{[]any{"a", "b"}, []any{"b", "c"}, `missing "a"; unexpected "c"`},
		{[]any{"a", "b"}, []any{"b", "a"}, "the same items in another order"},
	} {
		if got := Difference(tt.want, tt.got); got != tt.say {
			t.Errorf("Difference(%v, %v) = %s, want %s", tt.want, tt.got, got, tt.say)
		}
	}
}

// A declarative module that reaches its deadline stops starting cases,
// writes what it observed and says "timeout"; the runner keeps every
// check recorded before the deadline, and a hung case is killed at its
// own timeout without holding up the module. Assertions count cases, not
// seconds, so a loaded machine does not fail it: 60 cases of 0.3 s cannot
// all run in a 12 s budget, and a hung case not killed would take 60 s.
// The budget leaves room for each case's two re-executions of the helper
// (its init and its jail), which under -race take about a second.
func TestHelperDeadline(t *testing.T) {
	root := t.TempDir()
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"prog.sh": prog})
	tree(t, taskDir, map[string]string{"README": "a task\n"})
	var cases []any
	cases = append(cases, map[string]any{"id": "hang", "argv": []string{"/bin/sleep", "60"}, "timeout_sec": 1})
	const slow = 60
	for i := range slow {
		cases = append(cases, map[string]any{"id": fmt.Sprintf("slow%02d", i), "argv": []string{"/bin/sleep", "0.3"}})
	}
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {Original: [][]string{{"true"}}}},
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "slow", Kind: "command", About: "s", Weight: 1, Timeout: 12 * time.Second,
				Params: raw(map[string]any{"cases": cases, "parallel": false, "compare": []string{"exit"}})},
		},
	}
	work := filepath.Join(root, "work")
	s, err := d.Suite(behavioural.ModeRecord, work, "", []string{os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	r := &behavioural.Runner{Repo: original, Work: work, Grace: behavioural.DefaultGrace}
	start := time.Now()
	st, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 50*time.Second {
		t.Errorf("the suite took %s; the module's budget is 12 s and the hung case's 1 s", took)
	}
	// The module ends as a timeout, stopped by the helper at its own
	// deadline or, when winding down took longer than the half second the
	// helper keeps (each step re-executes the race-instrumented test
	// binary twice), by the runner's timer: either way it keeps the
	// checks recorded before the deadline and not all of them.
	u := st.Unit("slow")
	if u.Status != result.UnitTimeout {
		t.Errorf("unit %s: %s", u.Status, u.Summary)
	}
	checks := st.ChecksOf("slow")
	if len(checks) < 3 || checks[0].ID != "slow/hang/exit" {
		t.Fatalf("checks kept: %d (%v)", len(checks), checks)
	}
	if len(checks) >= 1+slow {
		t.Errorf("all %d cases ran (%d checks): the module's deadline did not stop it", 1+slow, len(checks))
	}
	if !strings.Contains(u.Summary, "stopped at the module's deadline after") {
		t.Logf("the runner's timer stopped the module: %s", u.Summary)
		return
	}
	tr := map[string]any{}
	b, _ := os.ReadFile(filepath.Join(work, "slow", "observations.json"))
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the module's observations: %v (%q)", err, b)
	}
	if got, _ := tr["values"].(map[string]any); got["hang/exit"] != "timeout" {
		t.Errorf("the hung case observed %v, want timeout", got["hang/exit"])
	}
}

// ExportedSymbols reads symbol versions: libc's printf is versioned.
func TestExportedSymbolsVersions(t *testing.T) {
	var libc string
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			libc = p
			break
		}
	}
	if libc == "" {
		t.Skip("no libc.so.6 here")
	}
	syms, err := ExportedSymbols(libc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(syms, func(s string) bool { return strings.HasPrefix(s, "printf@GLIBC_") && strings.HasSuffix(s, " func") }) {
		t.Errorf("no versioned printf among %d symbols", len(syms))
	}
	for _, s := range syms {
		if strings.HasPrefix(s, "@") {
			t.Errorf("an unnamed symbol: %q", s)
		}
	}
}

// "srb-helper suite SPEC" runs a whole stage from a spec, as a container
// of the behavioural image will: here, recording the kinds task.
func TestSuiteSpec(t *testing.T) {
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	d := decl(t, taskDir, false)
	stateA(t, original, false)
	// Run as root, the server runs as the submission's user, who cannot
	// enter the go tool's private build folder: it gets a copy.
	bin := filepath.Join(root, "bin", "server")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal(err)
	}
	for i, m := range d.Modules {
		if m.ID == "web" {
			q, _ := json.Marshal(os.Args[0])
			qb, _ := json.Marshal(bin)
			d.Modules[i].Params = json.RawMessage(strings.ReplaceAll(string(m.Params), string(q), string(qb)))
		}
	}
	// The srb that wrote the spec names itself; the stage result records
	// it next to the helper's own fingerprint (this test binary's).
	const orchestrator = "8815a3a68b15"
	spec := SuiteSpec{Declaration: d, Mode: behavioural.ModeRecord, Repo: original, Original: original,
		Work: filepath.Join(root, "work"), Result: filepath.Join(root, "out", "behavioural.json"), TimeoutSec: 300,
		Orchestrator: orchestrator}
	b, _ := json.Marshal(spec)
	if !strings.Contains(string(b), `"orchestrator":"8815a3a68b15"`) {
		t.Errorf("spec written as %s", b)
	}
	specPath := filepath.Join(root, "suite.json")
	os.WriteFile(specPath, b, 0o644)
	out, err := exec.Command(os.Args[0], "suite", specPath).CombinedOutput()
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	st, err := result.ReadStage(spec.Result)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range st.Units {
		if u.Status != result.UnitOK {
			t.Errorf("%s: %s %s", u.ID, u.Status, u.Summary)
		}
	}
	if failing, passing := checksByVerdict(st); len(failing) > 0 || passing < 20 {
		t.Errorf("%d passing, failing: %v", passing, failing)
	}
	if want := map[string]any{"fingerprint": result.Fingerprint(), "orchestrator": orchestrator}; !cmp.Equal(st.Harness, want) {
		t.Errorf("harness %v, want %v", st.Harness, want)
	}
	if g := result.Grader(st.Harness); g != orchestrator {
		t.Errorf("the stage is attributed to %q, want the orchestrator %q", g, orchestrator)
	}

	// A spec naming something that is not a fingerprint is refused before
	// anything runs (its stamp could not be written).
	bad := filepath.Join(root, "bad.json")
	spec.Result = filepath.Join(root, "bad", "behavioural.json")
	spec.Orchestrator = "srb 8815a3a6"
	b, _ = json.Marshal(spec)
	os.WriteFile(bad, b, 0o644)
	var stderr strings.Builder
	if code := Main([]string{"suite", bad}, io.Discard, &stderr); code != 70 ||
		!strings.Contains(stderr.String(), `orchestrator "srb 8815a3a6" is not a fingerprint`) {
		t.Errorf("a malformed orchestrator: exit %d, want 70\n%s", code, stderr.String())
	}
	if _, err := os.Stat(spec.Result); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused spec wrote a result: %v", err)
	}
	if code := Main([]string{"suite"}, io.Discard, io.Discard); code != 64 {
		t.Errorf("suite without a spec: exit %d, want 64", code)
	}
}

// TestBuildDetect: with state_b.detect, a tree that has the path is built
// with state_b.build and one that lacks it (State A unchanged) with the
// configuration's original commands; the ledger, the unit's metadata and
// the builds check say which (the unit's metadata.built). Without detect, state_b.build always runs.
func TestBuildDetect(t *testing.T) {
	root := t.TempDir()
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"README": "State A\n"})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {
			Original: [][]string{{"/bin/sh", "-c", "echo original > out"}}, Outputs: []string{"out"},
		}},
		StateB:       [][]string{{"/bin/sh", "-c", "echo state-b > out"}},
		StateBDetect: "cmd/main.go",
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "out", Kind: "command", About: "o", Weight: 1, Timeout: time.Minute, Params: raw(map[string]any{
				"cases": []any{map[string]any{"id": "out", "argv": []string{"cat", "${BUILD}/out"}}},
			})},
		},
	}
	helper := []string{os.Args[0]}
	fz := &behavioural.Freezer{Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl: d, Helper: helper, Provenance: behavioural.Provenance{Where: "host"}}
	if _, err := fz.Freeze(context.Background()); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	check := func(name string, sub string) (*result.Stage, behavioural.LedgerEntry) {
		t.Helper()
		work := filepath.Join(root, "check-"+name)
		s, err := d.Suite(behavioural.ModeCheck, work, filepath.Join(taskDir, behavioural.TruthDir), helper)
		if err != nil {
			t.Fatal(err)
		}
		st, err := (&behavioural.Runner{Repo: sub, Original: original, Work: work}).Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		e, err := behavioural.Ledger{Dir: filepath.Join(work, behavioural.SharedWork, behavioural.LedgerDir)}.Get("default")
		if err != nil {
			t.Fatal(err)
		}
		return st, e
	}
	builtBy := func(st *result.Stage) any {
		for _, u := range st.Units {
			if md, ok := u.Metadata["metadata"].(map[string]any); ok && u.ID == "build" {
				return md["built"]
			}
		}
		return nil
	}
	summary := func(st *result.Stage, id string) string {
		for _, c := range st.Checks {
			if c.ID == id {
				return c.Summary
			}
		}
		return ""
	}

	// State A submitted unchanged: the original commands, so it scores 1.0.
	st, e := check("unchanged", original)
	failing, passing := checksByVerdict(st)
	if len(failing) != 0 || passing != 5 || e.Built != behavioural.SourceOriginal {
		t.Errorf("State A: failing %v, %d passing, built %q; want none, 5, original", failing, passing, e.Built)
	}
	if diff := cmp.Diff(map[string]any{"default": "original"}, builtBy(st)); diff != "" {
		t.Errorf("build unit's metadata built (-want +got):\n%s", diff)
	}
	if s := summary(st, "build/default/builds"); !strings.Contains(s, "the tree has no cmd/main.go (state_b.detect)") {
		t.Errorf("builds check summary %q does not say why", s)
	}

	// A tree with the detect path: state_b.build, whose output differs.
	sub := filepath.Join(root, "b")
	tree(t, sub, map[string]string{"cmd/main.go": "package main\n"})
	st, e = check("state-b", sub)
	failing, _ = checksByVerdict(st)
	if diff := cmp.Diff([]string{`out/out/stdout: want "original\n", got "state-b\n"`}, failing); diff != "" || e.Built != behavioural.SourceStateB {
		t.Errorf("State B tree: built %q; failing (-want +got):\n%s", e.Built, diff)
	}
	if s := summary(st, "build/default/builds"); !strings.Contains(s, "the tree has cmd/main.go (state_b.detect): built with state_b.build") {
		t.Errorf("builds check summary %q", s)
	}

	// Without detect nothing changes: state_b.build builds State A too.
	d.StateBDetect = ""
	st, e = check("no-detect", original)
	if e.Built != behavioural.SourceStateB || builtBy(st) == nil {
		t.Errorf("without detect: built %q, metadata %v", e.Built, builtBy(st))
	}
}

// searchableTempDir is t.TempDir() with it and its parent searchable by
// every user, as a stage container's /srb is: run as root, the helper
// puts the submission's sandbox beside the work folder.
func searchableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Header fields are compared as HTTP means them: two frameworks that send
// the same fields in another order or case agree; fields of one name keep
// their order; a name list keeps only the fields it names.
func TestCanonicalHeaders(t *testing.T) {
	express := []string{"X-Powered-By: Express", "Vary: Origin, Accept-Encoding", "Set-Cookie: a=1", "Content-Type: application/json; charset=utf-8", "Set-Cookie: b=2", "X-Total-Count:  3 "}
	fastify := []string{"content-type: application/json; charset=utf-8", "x-total-count: 3", "set-cookie: a=1", "vary: Origin, Accept-Encoding", "set-cookie: b=2"}
	want := []string{"content-type: application/json; charset=utf-8", "set-cookie: a=1", "set-cookie: b=2", "vary: Origin, Accept-Encoding", "x-total-count: 3"}
	only := []string{"Content-Type", "VARY", "x-total-count", "Set-Cookie"}
	if diff := cmp.Diff(want, canonicalHeaders(express, only)); diff != "" {
		t.Errorf("express (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, canonicalHeaders(fastify, only)); diff != "" {
		t.Errorf("fastify (-want +got):\n%s", diff)
	}
	if got := canonicalHeaders(express, nil); len(got) != 6 || got[5] != "x-total-count: 3" || got[4] != "x-powered-by: Express" {
		t.Errorf("all fields: %q", got)
	}
	swapped := []string{"Set-Cookie: b=2", "Set-Cookie: a=1"}
	if got := canonicalHeaders(swapped, nil); got[0] != "set-cookie: b=2" {
		t.Errorf("one name's fields reordered: %q", got)
	}
}

// A corpus's timeout_sec is every corpus case's timeout.
func TestCorpusTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &commandKind{CommandParams: CommandParams{Corpus: &Corpus{Dir: ".", Glob: "*.txt", Argv: []string{"cat", "${INPUT}"}, TimeoutSec: 42}}}
	cases, err := k.cases(dir, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].TimeoutSec != 42 {
		t.Fatalf("cases %+v", cases)
	}
}

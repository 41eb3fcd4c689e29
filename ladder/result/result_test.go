package result_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

var t0 = time.Date(2026, 7, 30, 9, 0, 0, 0, time.UTC)

func ptr(f float64) *float64 { return &f }

// noTemp fails when a ".tmp-" file was left behind in dir.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// fixtureStage is the stage in testdata/stage-behavioural.json, which was
// written by Python's json.dump(doc, fh, indent=2) in the earlier harness's
// layout (metadata keys sorted).
func fixtureStage() *result.Stage {
	s := result.NewStage(result.StageBehavioural, "fw06-uploadserver-gorillamux-to-nethttp", t0)
	s.Harness = map[string]any{"fingerprint": "0123456789ab"}
	s.DurationSec = 41.23456
	s.Units = []result.Unit{
		{ID: "routes", Title: "HTTP routes", Weight: 0.5, Status: "ok", DurationSec: ptr(12),
			Metadata: map[string]any{"exit_code": 1, "log": "/logs/routes.log"}},
		{ID: "walk", Title: "walk", Weight: 1.0 / 3, Status: "unreached",
			Summary: "the stage ended before this module was reached; it recorded nothing and keeps its weight"},
	}
	s.Checks = []result.Check{
		{ID: "routes/get-index", Verdict: "pass", Summary: "GET / → 200 é", Weight: 1, Unit: "routes", DurationSec: ptr(0.0012345)},
		{ID: "routes/put", Verdict: "fail", Summary: `PUT "x" <b>`, Weight: 2.5, Unit: "routes",
			Detail:   "line1\nline2\ttab",
			Evidence: []map[string]any{{"note": "no body"}, {"path": "a.go", "line": 3, "quote": "x"}},
			Metadata: map[string]any{"kind": "case", "ratio": 1e-05, "big": 1e16}},
	}
	s.Metadata = map[string]any{"checks": 2, "checks_passed": 1, "modules": 2, "modules_ok": 1, "modules_unreached": 1, "repo": "/workspace/repo"}
	s.Notes = []string{"one module was never reached 😀"}
	return s
}

func TestStageBytesMatchPython(t *testing.T) {
	want, err := os.ReadFile("testdata/stage-behavioural.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(fixtureStage())
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal compacts; the file writer keeps the layout.
	dir := t.TempDir()
	path := filepath.Join(dir, "behavioural.json")
	if err := fixtureStage().Write(path); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(path)
	if diff := cmp.Diff(string(want), string(written)); diff != "" {
		t.Errorf("written bytes differ from Python's (-python +srb):\n%s", diff)
	}
	// MarshalJSON is the same document (encoding/json compacts it).
	var a, b any
	json.Unmarshal(want, &a)
	json.Unmarshal(got, &b)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("MarshalJSON differs:\n%s", diff)
	}
	noTemp(t, dir)
}

func TestStageRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "behavioural.json")
	if err := fixtureStage().Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadStage(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stage != "behavioural" || back.Status != "ok" || back.StartedAt != "2026-07-30T09:00:00Z" || back.DurationSec != 41.235 {
		t.Errorf("envelope = %+v", back)
	}
	if back.Checks[0].Summary != "GET / → 200 é" || *back.Checks[0].DurationSec != 0.001 || back.Units[1].Weight != 0.333333 {
		t.Errorf("checks %+v units %+v", back.Checks[0], back.Units[1])
	}
	// Written back unchanged, byte for byte: reading keeps numbers' spelling.
	path2 := filepath.Join(dir, "again.json")
	if err := back.Write(path2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(path2)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("round trip changed the file:\n%s", diff)
	}
	noTemp(t, filepath.Dir(path))
	noTemp(t, dir)
}

// Bug 86: provenance is stamped once, at construction, and a result read
// off disk keeps the harness that wrote it.
func TestFingerprintStampedOnce(t *testing.T) {
	fp := result.Fingerprint()
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(fp) {
		t.Fatalf("Fingerprint() = %q, want 12 hex characters", fp)
	}
	if result.Fingerprint() != fp {
		t.Error("the fingerprint changed between calls")
	}
	s := result.NewStage(result.StageAudit, "t", t0)
	if !cmp.Equal(s.Harness, map[string]any{"fingerprint": fp}) {
		t.Errorf("NewStage harness = %v", s.Harness)
	}
	if f := result.Failed(result.StageAudit, "t", "boom", t0); !cmp.Equal(f.Harness, s.Harness) ||
		f.Status != "error" || !cmp.Equal(f.Notes, []string{"boom"}) || f.Metadata["error"] != "boom" {
		t.Errorf("Failed = %+v", f)
	}

	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"schema":"swerefactor.stage-result/1","stage":"audit","task":"t","status":"ok",
		"started_at":"2025-01-01T00:00:00Z","duration_sec":1.0,"harness":{"fingerprint":"0123456789ab"},
		"units":[],"checks":[],"metadata":{},"notes":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := result.ReadStage(old)
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness["fingerprint"] != "0123456789ab" {
		t.Errorf("read harness = %v", s.Harness)
	}
	out := filepath.Join(dir, "rewritten.json")
	if err := s.Write(out); err != nil {
		t.Fatal(err)
	}
	again, _ := result.ReadStage(out)
	if again.Harness["fingerprint"] != "0123456789ab" {
		t.Errorf("re-stamped on write: %v", again.Harness)
	}
	// A file written before provenance existed has none, and gets none.
	pre := filepath.Join(dir, "pre.json")
	os.WriteFile(pre, []byte(`{"schema":"swerefactor.stage-result/1","stage":"audit","task":"t","status":"ok",
		"started_at":"2025-01-01T00:00:00Z","duration_sec":0,"units":[],"checks":[],"metadata":{},"notes":[]}`), 0o644)
	s, err = result.ReadStage(pre)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Harness) != 0 {
		t.Errorf("invented a harness: %v", s.Harness)
	}
	data, _ := json.Marshal(s)
	if !bytes.Contains(data, []byte(`"harness":{}`)) {
		t.Errorf("written as %s", data)
	}
}

// A stage written by srb's in-image helper for an srb carries both
// fingerprints, stamped once at construction; it is attributed to the
// orchestrator, and a stamp read off disk keeps both.
func TestOrchestratedStamp(t *testing.T) {
	fp := result.Fingerprint()
	const srb = "8815a3a68b15"
	s := result.NewOrchestratedStage(result.StageBehavioural, "t", srb, t0)
	if want := map[string]any{"fingerprint": fp, "orchestrator": srb}; !cmp.Equal(s.Harness, want) {
		t.Errorf("NewOrchestratedStage harness = %v, want %v", s.Harness, want)
	}
	if g := result.Grader(s.Harness); g != srb {
		t.Errorf("Grader = %q, want the orchestrator %q", g, srb)
	}
	// No orchestrator, a malformed one, or this program itself: only the
	// fingerprint (a malformed value would make the result unwritable).
	for _, o := range []string{"", fp, "8815A3A68B15", "8815a3a68b1", "not a fingerprint"} {
		if h := result.Stamp(o); !cmp.Equal(h, map[string]any{"fingerprint": fp}) {
			t.Errorf("Stamp(%q) = %v, want only the fingerprint", o, h)
		}
	}
	if g := result.Grader(result.NewStage(result.StageAudit, "t", t0).Harness); g != fp {
		t.Errorf("Grader of srb's own stamp = %q, want %q", g, fp)
	}
	if g := result.Grader(map[string]any{}); g != "" {
		t.Errorf("Grader of an empty stamp = %q", g)
	}

	path := filepath.Join(t.TempDir(), "behavioural.json")
	if err := s.Write(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "\"harness\": {\n    \"fingerprint\": \"" + fp + "\",\n    \"orchestrator\": \"" + srb + "\"\n  },"; !bytes.Contains(data, []byte(want)) {
		t.Errorf("written without %s:\n%s", want, data)
	}
	back, err := result.ReadStage(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(back.Harness, s.Harness) {
		t.Errorf("read back %v, wrote %v", back.Harness, s.Harness)
	}
	for _, c := range []struct{ in, want string }{
		{"8815a3a68b15", "true"}, {"0123456789ab", "true"}, {"", "false"}, {"8815a3a68b1", "false"},
		{"8815a3a68b150", "false"}, {"8815A3A68B15", "false"}, {"8815a3a68b1g", "false"},
	} {
		if got := fmt.Sprint(result.IsFingerprint(c.in)); got != c.want {
			t.Errorf("IsFingerprint(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStageReadingIsLenient(t *testing.T) {
	var s result.Stage
	err := json.Unmarshal([]byte(`{"stage":"Behavioural","status":"skip","duration_sec":null,
		"units":[{"id":"","status":"exploded","weight":"abc"},{"id":"m","weight":-2,"status":"TIMEOUT"}],
		"checks":[{"name":"by-name","verdict":"PASS","weight":"0.5","required":1,"evidence":"just text"},
		          {"verdict":"probably-fine","weight":null,"evidence":["x",{"path":"p"}],"metadata":[1]},
		          "not a check"],
		"notes":["a", 3]}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Stage != "behavioural" || s.Status != "error" || s.DurationSec != 0 || s.Task != "" {
		t.Errorf("envelope %q %q %v %q", s.Stage, s.Status, s.DurationSec, s.Task)
	}
	if _, err := time.Parse(result.TimeLayout, s.StartedAt); err != nil {
		t.Errorf("started_at %q: %v", s.StartedAt, err)
	}
	wantUnits := []result.Unit{
		{ID: "<unnamed>", Weight: 1, Status: "error", Metadata: map[string]any{}},
		{ID: "m", Weight: 0, Status: "timeout", Metadata: map[string]any{}},
	}
	if diff := cmp.Diff(wantUnits, s.Units); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	wantChecks := []result.Check{
		{ID: "by-name", Verdict: "pass", Weight: 0.5, Required: true, Evidence: []map[string]any{{"note": "just text"}}, Metadata: map[string]any{}},
		{ID: "<unnamed>", Verdict: "error", Weight: 1, Evidence: []map[string]any{{"note": "x"}, {"path": "p"}}, Metadata: map[string]any{}},
	}
	if diff := cmp.Diff(wantChecks, s.Checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if !cmp.Equal(s.Notes, []string{"a", "3"}) {
		t.Errorf("notes %q", s.Notes)
	}
	if err := json.Unmarshal([]byte(`{"stage":"scan"}`), &s); err == nil ||
		err.Error() != "parse stage result: unknown stage 'scan'; expected one of audit, behavioural, verification" {
		t.Errorf("unknown stage: %v", err)
	}
}

func TestSchemaViolationsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.json")
	s := result.NewStage("scan", "t", t0)
	err := s.Write(path)
	var ve *contract.ValidationError
	if !errors.As(err, &ve) || ve.File != path || ve.Contract != contract.StageResult || ve.Pointer != "/stage" {
		t.Fatalf("Write = %v (%#v)", err, ve)
	}
	if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
		t.Error("an invalid result was written")
	}
	noTemp(t, dir)

	os.WriteFile(path, []byte(`{"schema":"swerefactor.stage-result/1","stage":"audit"}`), 0o644)
	_, err = result.ReadStage(path)
	if !errors.As(err, &ve) || ve.File != path || !strings.HasPrefix(err.Error(), "read stage result "+path+": ") {
		t.Errorf("ReadStage = %v", err)
	}
	os.WriteFile(path, []byte(`not json`), 0o644)
	if _, err = result.ReadStage(path); !errors.As(err, &ve) || !strings.Contains(ve.Msg, "not JSON") {
		t.Errorf("ReadStage(not json) = %v", err)
	}
	if _, err := result.ReadStage(filepath.Join(dir, "absent.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadStage(absent) = %v", err)
	}
}

func TestPooled(t *testing.T) {
	checks := []result.Check{
		{Verdict: "pass", Weight: 1}, {Verdict: "skip", Weight: 1},
		{Verdict: "fail", Weight: 0}, {Verdict: "pass", Weight: 7},
	}
	if p, tot := result.Pooled(checks); p != 2 || tot != 3 {
		t.Errorf("Pooled = %d/%d, want 2/3 (skips charged, weight 0 out)", p, tot)
	}
	if r := result.Rate(nil); r != 0 {
		t.Errorf("Rate(empty) = %v, want 0", r)
	}
	if r := result.Rate([]result.Check{{Verdict: "skip", Weight: 1}, {Verdict: "skip", Weight: 1}}); r != 0 {
		t.Errorf("Rate(all skipped) = %v", r)
	}
}

func TestParseModuleResult(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		checks  []string // id:verdict
		status  string
		summary string
		meta    map[string]any
		err     bool
	}{
		{name: "bare list", data: `[{"id":"a","verdict":"pass"},{"id":"b","verdict":"FAIL"}]`,
			checks: []string{"m/a:pass", "m/b:fail"}, meta: map[string]any{}},
		{name: "checks object with metadata and notes",
			data:   `{"checks":[{"name":"n","verdict":"skip"}],"metadata":{"k":1},"notes":["declined 3"]}`,
			checks: []string{"m/n:skip"}, meta: map[string]any{"metadata": map[string]any{"k": json.Number("1")}, "notes": []any{"declined 3"}}},
		{name: "weight zero dropped, counted and kept as findings",
			data:   `{"checks":[{"id":"a","verdict":"pass"},{"id":"o","verdict":"fail","weight":0,"summary":"type: commonjs","detail":"17 files use require"},{"id":"p","verdict":"pass","weight":-1},{"id":"q","verdict":"maybe","weight":"x"}]}`,
			checks: []string{"m/a:pass", "m/q:error"}, meta: map[string]any{"unscored_observations": 2, "unscored_findings": []any{
				map[string]any{"id": "m/o", "verdict": "fail", "summary": "type: commonjs", "detail": "17 files use require"},
				map[string]any{"id": "m/p", "verdict": "pass", "summary": ""},
			}}},
		// A result that could hide a failing check is refused whole: no
		// check is kept, so the module recorded nothing, never a pass.
		{name: "a repeated id is refused, not dropped",
			data:   `{"checks":[{"id":"a","verdict":"pass"},{"id":"a","verdict":"fail"}]}`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": `at /checks/1/id: check id "a" is already used by /checks/0`}},
		{name: "a repeated id among observations is refused",
			data:   `[{"id":"a","verdict":"pass"},{"id":"a","verdict":"fail","weight":0}]`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": `at /1/id: check id "a" is already used by /0`}},
		{name: "a check without an id is refused",
			data:   `{"checks":[{"id":"a","verdict":"pass"},{"verdict":"fail"},{"verdict":"fail"}]}`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": "at /checks/1: the check has no id: a check that cannot be named cannot be counted"}},
		{name: "an empty id is refused",
			data:   `{"checks":[{"id":"","name":"","verdict":"fail"}]}`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": "at /checks/0: the check has no id: a check that cannot be named cannot be counted"}},
		{name: "a duplicated checks key is refused",
			data:   `{"checks":[{"id":"a","verdict":"fail"}],"checks":[{"id":"a","verdict":"pass"}]}`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": `module-result: at /: key "checks" appears more than once in this object; a field with two values is refused, not read`}},
		{name: "a duplicated verdict key is refused",
			data:   `{"checks":[{"id":"a","verdict":"fail","verdict":"pass"}]}`,
			checks: []string{}, err: true,
			meta: map[string]any{"result_error": `module-result: at /checks/0: key "verdict" appears more than once in this object; a field with two values is refused, not read`}},
		{name: "a non-object entry is refused",
			data: `{"checks":[{"id":"a","verdict":"pass"},7]}`, checks: []string{}, err: true,
			meta: map[string]any{"result_error": "at /checks/1: a check is not an object"}},
		{name: "checks that are not a list are refused",
			data: `{"checks":{"id":"a","verdict":"fail"}}`, checks: []string{}, err: true,
			meta: map[string]any{"result_error": "at /checks: checks is not a list"}},
		{name: "full envelope with a top-level error",
			data:   `{"schema":"swerefactor.stage-result/1","stage":"behavioural","status":"error","error":"` + strings.Repeat("e", 1200) + `","checks":[{"id":"x","verdict":"pass","required":true,"unit":"elsewhere"}],"notes":[]}`,
			checks: []string{"m/x:pass"}, status: "error", summary: strings.Repeat("e", 1000), meta: map[string]any{}},
		{name: "timeout with a summary", data: `{"status":"timeout","summary":"ran out","checks":[]}`,
			checks: []string{}, status: "timeout", summary: "ran out", meta: map[string]any{}},
		{name: "other statuses do not override", data: `{"status":"ERROR","checks":null}`, checks: []string{}, meta: map[string]any{}},
		{name: "not JSON", data: `{"checks": [`, checks: []string{}, err: true},
		{name: "not an object", data: `"hello"`, checks: []string{}, err: true,
			meta: map[string]any{"result_error": "the result is not an object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := result.ParseModuleResult("m", []byte(tt.data))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil && !errors.Is(err, result.ErrModuleResult) {
				t.Errorf("err %v does not wrap ErrModuleResult", err)
			}
			ids := []string{}
			for _, c := range got.Checks {
				ids = append(ids, c.ID+":"+c.Verdict)
				if c.Unit != "m" || c.Required {
					t.Errorf("check %+v: unit must be the module and required cleared", c)
				}
			}
			if !cmp.Equal(ids, tt.checks) {
				t.Errorf("checks = %v, want %v", ids, tt.checks)
			}
			if got.Status != tt.status || got.Summary != tt.summary {
				t.Errorf("status %q summary %q", got.Status, got.Summary)
			}
			if tt.meta != nil {
				if diff := cmp.Diff(tt.meta, got.Metadata); diff != "" {
					t.Errorf("metadata (-want +got):\n%s", diff)
				}
			}
			if tt.name == "not JSON" && !strings.HasPrefix(got.Metadata["result_error"].(string), "JSONDecodeError: ") {
				t.Errorf("result_error = %v", got.Metadata["result_error"])
			}
		})
	}

	u := result.Unit{ID: "m", Status: "ok", Metadata: map[string]any{"exit_code": 0}}
	mr, _ := result.ParseModuleResult("m", []byte(`{"status":"timeout","summary":"late","checks":[{"id":"a","verdict":"pass","weight":0}]}`))
	mr.Apply(&u)
	want := result.Unit{ID: "m", Status: "timeout", Summary: "late", Metadata: map[string]any{"exit_code": 0, "unscored_observations": 1,
		"unscored_findings": []any{map[string]any{"id": "m/a", "verdict": "pass", "summary": ""}}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
}

func TestRewardKey(t *testing.T) {
	for id, want := range map[string]string{
		"corpus/status-codes": "corpus_status_codes",
		"a00-survivor":        "a00_survivor",
		"--Weird Name!!":      "weird_name",
		"___":                 "unnamed",
		"":                    "unnamed",
		"Ünïcode·x":           "ünïcode_x",
	} {
		if got := result.RewardKey(id); got != want {
			t.Errorf("RewardKey(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestErrorVerdictAndCouldNotRun(t *testing.T) {
	v := result.ErrorVerdict("t", "the verifier image is missing")
	if v.Valid() || v.Score != 0 || v.MaxScore != 100 || v.AuditGate != "not-run" || v.HarnessError != "the verifier image is missing" {
		t.Errorf("ErrorVerdict = %+v", v)
	}
	if !cmp.Equal(v.Notes, []string{"the score below is not a judgement about the submission; the grader did not complete"}) {
		t.Errorf("notes %q", v.Notes)
	}
	err := errors.Join(errors.New("start stage 2"), result.ErrCouldNotRun)
	if !errors.Is(err, result.ErrCouldNotRun) || result.ErrCouldNotRun.Error() != "could not run" {
		t.Error("ErrCouldNotRun is not a usable sentinel")
	}
	dir := t.TempDir()
	if err := result.Publish(dir, v, "summary"); err != nil {
		t.Fatal(err)
	}
	flat := readReward(t, dir)
	if flat["valid"] != 0 || flat["reward"] != 0 || flat["stage1_ran"] != 0 {
		t.Errorf("reward = %v", flat)
	}
}

func readReward(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, result.RewardFile))
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]float64
	if err := json.Unmarshal(data, &flat); err != nil {
		t.Fatal(err)
	}
	return flat
}

// grade builds verdicts with the real scorer, so every shape the scorer
// can produce is validated against the JSON Schemas below.
func policy() scoring.Policy { return scoring.Published() }

func auditStage(verdict string) *result.Stage {
	s := result.NewStage(result.StageAudit, "t", t0)
	s.Add(result.Check{ID: "default_path", Verdict: verdict, Summary: "the new implementation serves traffic", Required: true, Weight: 1, Unit: "default_path",
		Evidence: []map[string]any{{"path": "src/main.go", "line": 3, "quote": "mux.NewRouter()", "grounded": true}}})
	return s
}

func behaviouralStage(pass, total int) *result.Stage {
	s := result.NewStage(result.StageBehavioural, "t", t0)
	s.Units = append(s.Units, result.Unit{ID: "corpus", Title: "the corpus", Weight: 1, Status: "ok"})
	for i := 0; i < total; i++ {
		v := "fail"
		if i < pass {
			v = "pass"
		}
		s.Add(result.Check{ID: "corpus/" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Unit: "corpus", Verdict: v, Weight: 1, Summary: "case"})
	}
	return s
}

func verificationStage(survived, broken, errored int) *result.Stage {
	s := result.NewStage(result.StageVerification, "t", t0)
	var rounds []any
	add := func(prefix, verdict, outcome string, n int) {
		for i := 0; i < n; i++ {
			id := prefix + string(rune('0'+i))
			s.Add(result.Check{ID: id, Unit: id, Verdict: verdict, Weight: 1, Summary: outcome, Metadata: map[string]any{"kind": "round"}})
			rounds = append(rounds, map[string]any{"adversary": id, "outcome": outcome})
		}
	}
	add("a0", "pass", "survived", survived)
	add("b0", "fail", "broken", broken)
	add("e0", "error", "error", errored)
	s.Metadata["rounds"] = rounds
	return s
}

func scenarios() map[string]*result.Verdict {
	g := func(a, b, v *result.Stage, declared ...string) *result.Verdict {
		return scoring.Grade("t", scoring.Stages{Audit: a, Behavioural: b, Verification: v, Declared: declared}, policy())
	}
	unreached := result.NewStage(result.StageBehavioural, "t", t0)
	unreached.Units = append(unreached.Units, result.Unit{ID: "walk", Weight: 1, Status: "unreached"})
	return map[string]*result.Verdict{
		"full marks":             g(auditStage("pass"), behaviouralStage(10, 10), verificationStage(6, 0, 0)),
		"gate failed, all ran":   g(auditStage("fail"), behaviouralStage(9, 10), verificationStage(6, 0, 0)),
		"gate undecided":         g(auditStage("error"), behaviouralStage(10, 10), nil),
		"stage 2 short":          g(auditStage("pass"), behaviouralStage(995, 1000), verificationStage(6, 0, 0)),
		"stage 3 incomplete":     g(auditStage("pass"), behaviouralStage(10, 10), verificationStage(4, 1, 1)),
		"stage 3 missing":        g(auditStage("pass"), behaviouralStage(10, 10), nil, result.StageNames()...),
		"no audit":               g(nil, nil, nil),
		"gate failed, unreached": g(auditStage("fail"), unreached, nil),
		"error verdict":          result.ErrorVerdict("t", "boom"),
	}
}

// Every verdict the scorer produces, and the reward.json it flattens to,
// satisfies the JSON Schemas, survives a round trip byte for byte, and is
// written atomically.
func TestVerdictRoundTripAndSchemas(t *testing.T) {
	for name, v := range scenarios() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := result.Publish(dir, v, "the report"); err != nil {
				t.Fatal(err)
			}
			noTemp(t, dir)
			back, err := result.ReadVerdict(filepath.Join(dir, result.ScoreFile))
			if err != nil {
				t.Fatal(err)
			}
			first, _ := os.ReadFile(filepath.Join(dir, result.ScoreFile))
			again := filepath.Join(dir, "again.json")
			if err := back.Write(again); err != nil {
				t.Fatal(err)
			}
			second, _ := os.ReadFile(again)
			if diff := cmp.Diff(string(first), string(second)); diff != "" {
				t.Errorf("round trip changed score.json:\n%s", diff)
			}
			if diff := cmp.Diff(result.Reward(v), result.Reward(back)); diff != "" {
				t.Errorf("reward changed after a round trip:\n%s", diff)
			}
			summary, _ := os.ReadFile(filepath.Join(dir, result.SummaryFile))
			if string(summary) != "the report\n" {
				t.Errorf("summary.txt = %q", summary)
			}
			reward, _ := os.ReadFile(filepath.Join(dir, result.RewardFile))
			if err := contract.ValidateBytes(contract.Reward, reward); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestScoreJSONSpelling(t *testing.T) {
	v := scenarios()["gate failed, all ran"]
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	json.Unmarshal(data, &raw)
	// The three spellings of the discarded-stage record.
	if !cmp.Equal(raw["unscored"], raw["uncredited"]) {
		t.Error("unscored and uncredited differ")
	}
	unc := raw["uncounted"].(map[string]any)["behavioural"].(map[string]any)
	if unc["modules"] != 1.0 || unc["ran"] != true || unc["measured"] != true || unc["stage_blocked_by"] != "behavioural-incomplete" {
		t.Errorf("uncounted.behavioural = %v", unc)
	}
	// Python's float spelling survives in the file itself.
	dir := t.TempDir()
	path := filepath.Join(dir, "score.json")
	if err := v.Write(path); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	for _, want := range []string{
		"{\n  \"schema\": \"swerefactor.score/1\",\n  \"task\": \"t\",\n  \"reward\": 0.0,\n  \"score\": 0.0,\n  \"max_score\": 100.0,\n  \"valid\": true,\n  \"audit_gate\": \"fail\",",
		`"models_total": 0,`,
		`"scored_weight": 10.0,`,
		"\"checks\": {\n          \"passed\": 9,",
		`"behavioural_measured_rate": 0.9,`,
		"\n  \"uncounted\": {\n    \"behavioural\": {\n      \"ran\": true,\n      \"measured\": true,\n      \"points\": 0.0,\n      \"rate\": 0.9,",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("score.json lacks %q", want)
		}
	}
	if !strings.HasSuffix(string(text), "}\n") {
		t.Error("no trailing newline")
	}
}

func TestReadOldVerdicts(t *testing.T) {
	// A score.json carrying only the third spelling, as one branch of the
	// earlier harness wrote it.
	v, err := result.ReadVerdict("testdata/score-uncounted-only.json")
	if err != nil {
		t.Fatal(err)
	}
	b := v.Unscored["behavioural"]
	if b["module_count"] != json.Number("3") || b["counted"] != false || b["blocked_by"] != "behavioural-incomplete" {
		t.Errorf("unscored.behavioural = %v", b)
	}
	if _, ok := b["modules"]; ok {
		t.Error("a count was restored as module rows")
	}
	if e := v.Unscored["verification"]; e["error"] != "the stage result could not be read" {
		t.Errorf("unscored.verification = %v", e)
	}
	if u := v.Uncounted()["behavioural"]; u["modules"] != json.Number("3") || u["measured"] != true {
		t.Errorf("uncounted = %v", u)
	}
	if !cmp.Equal(v.Harnesses, []map[string]any{{"fingerprint": "0123456789ab", "stage": "audit"}}) {
		t.Errorf("harnesses = %v", v.Harnesses)
	}
	m := v.Modules[0]
	if !m.Complete || m.Passed != 4 {
		t.Errorf("complete must default to rate ≥ 1 and scored_weight > 0: %+v", m)
	}
	if v.Modules[1].Complete {
		t.Errorf("a module that scored nothing is not complete: %+v", v.Modules[1])
	}
	flat := result.Reward(v)
	if flat["stage2_uncounted_modules"] != 3 || flat["harnesses_distinct"] != 1 || flat["stage2_uncounted_complete"] != 0 {
		t.Errorf("reward %v", flat)
	}
}

func TestRewardFlattening(t *testing.T) {
	v := scoring.Grade("t", scoring.Stages{Audit: auditStage("pass"), Behavioural: behaviouralStage(10, 10),
		Verification: verificationStage(4, 1, 1)}, policy())
	v.Harnesses = []map[string]any{{"fingerprint": "aaaaaaaaaaaa", "stage": "audit"}, {"fingerprint": "bbbbbbbbbbbb", "stage": "behavioural"}, {"fingerprint": "bbbbbbbbbbbb", "stage": "verification"}}
	flat := result.Reward(v)
	want := map[string]float64{
		"reward": 0.8, "score": 80, "max_score": 100, "valid": 0,
		"stage1_ran": 1, "stage1_passed": 1, "stage1_failures": 0,
		"stage2_ran": 1, "stage2_scored": 1, "stage2_points": 40, "stage2_rate": 1, "stage2_modules": 1,
		"stage3_ran": 1, "stage3_scored": 1, "stage3_points": 40, "stage3_models": 6, "stage3_survived": 4, "stage3_broken": 1,
		"blocked_by_audit_gate": 0, "blocked_by_behavioural_incomplete": 0,
		"stage2_uncounted_ran": 0, "stage2_uncounted_points": 0, "stage2_uncounted_rate": 0, "stage2_uncounted_modules": 0, "stage2_uncounted_complete": 0,
		"stage3_uncounted_ran": 0, "stage3_uncounted_points": 0, "stage3_uncounted_models": 0, "stage3_uncounted_survived": 0,
		"module_corpus_rate": 1, "module_corpus_weight": 1, "module_corpus_passed": 10, "module_corpus_failed": 0,
		"module_corpus_errored": 0, "module_corpus_skipped": 0, "module_corpus_ran": 1,
		"adversary_a00_survived": 1, "adversary_a01_survived": 1, "adversary_a02_survived": 1, "adversary_a03_survived": 1,
		"adversary_b00_survived": 0,
		"harnesses_distinct":     2,
	}
	if diff := cmp.Diff(want, flat); diff != "" {
		t.Errorf("reward (-want +got):\n%s", diff)
	}
	// Stage 2 written by the in-image helper (its own fingerprint) for the
	// srb that wrote stages 1 and 3 is one grader; for another srb, two.
	v.Harnesses = []map[string]any{{"fingerprint": "aaaaaaaaaaaa", "stage": "audit"},
		{"fingerprint": "cccccccccccc", "orchestrator": "aaaaaaaaaaaa", "stage": "behavioural"},
		{"fingerprint": "aaaaaaaaaaaa", "stage": "verification"}}
	if n := result.Reward(v)["harnesses_distinct"]; n != 1 {
		t.Errorf("helper orchestrated by the same srb: harnesses_distinct %v, want 1", n)
	}
	v.Harnesses[1]["orchestrator"] = "bbbbbbbbbbbb"
	if n := result.Reward(v)["harnesses_distinct"]; n != 2 {
		t.Errorf("helper orchestrated by another srb: harnesses_distinct %v, want 2", n)
	}
	delete(v.Harnesses[1], "orchestrator")
	if n := result.Reward(v)["harnesses_distinct"]; n != 2 {
		t.Errorf("helper with no orchestrator: harnesses_distinct %v, want 2", n)
	}
	v.Harnesses = []map[string]any{{"fingerprint": "aaaaaaaaaaaa", "stage": "audit"}, {"fingerprint": "bbbbbbbbbbbb", "stage": "behavioural"}, {"fingerprint": "bbbbbbbbbbbb", "stage": "verification"}}
	dir := t.TempDir()
	if err := result.Publish(dir, v, ""); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(filepath.Join(dir, result.RewardFile))
	for _, line := range []string{
		"{\n  \"adversary_a00_survived\": 1,\n",
		"  \"max_score\": 100.0,\n", "  \"module_corpus_rate\": 1.0,\n", "  \"module_corpus_passed\": 10,\n",
		"  \"reward\": 0.8,\n", "  \"stage2_uncounted_rate\": 0.0,\n", "  \"stage3_models\": 6,\n", "  \"valid\": 0\n}\n",
	} {
		if !strings.Contains(string(text), line) {
			t.Errorf("reward.json lacks %q:\n%s", line, text)
		}
	}
}

func TestPublishWritesNothingInvalid(t *testing.T) {
	dir := t.TempDir()
	v := result.NewVerdict("t", 100)
	v.Score = -1
	err := result.Publish(dir, v, "x")
	var ve *contract.ValidationError
	if !errors.As(err, &ve) || ve.File != filepath.Join(dir, result.ScoreFile) || (ve.Pointer != "/reward" && ve.Pointer != "/score") {
		t.Fatalf("Publish = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files written for an invalid verdict: %v", entries)
	}
}

// A verdict written before module rows carried a status reads with status
// "" (which counts as reported), is not complete without a scored_weight,
// and writes back as the earlier harness
// would, "status": "".
func TestVerdictBeforeModuleStatus(t *testing.T) {
	v, err := result.ReadVerdict("testdata/score-before-status.json")
	if err != nil {
		t.Fatal(err)
	}
	if m := v.Modules[0]; m.Status != "" || m.Complete || result.ReportedModules(v.Modules) != 1 {
		t.Errorf("row %+v", m)
	}
	path := filepath.Join(t.TempDir(), "score.json")
	if err := v.Write(path); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), `"status": "",`) {
		t.Errorf("written as\n%s", text)
	}
}

// A checkpoint is the same document Write writes, replaced whole.
func TestWriteCheckpoint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "behavioural.json")
	st := result.NewStage(result.StageBehavioural, "t", time.Unix(0, 0).UTC())
	st.Units = append(st.Units, result.Unit{ID: "m", Title: "m", Weight: 1, Status: result.UnitUnreached})
	if err := st.WriteCheckpoint(p); err != nil {
		t.Fatal(err)
	}
	cp, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(p); err != nil {
		t.Fatal(err)
	}
	final, _ := os.ReadFile(p)
	if string(cp) != string(final) {
		t.Errorf("checkpoint %s\nfinal %s", cp, final)
	}
	if _, err := result.ReadStage(p); err != nil {
		t.Fatal(err)
	}
}

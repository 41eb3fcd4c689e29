package lint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles testdata/sarif-srb.schema.json, srb's own JSON
// Schema of the SARIF 2.1.0 subset it emits, with formats asserted.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-srb.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("srb:/sarif-srb.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("srb:/sarif-srb.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSARIFSatisfiesSchema renders every case pair and the fixture as
// SARIF and validates the log against the schema; each result's ruleIndex
// names the driver rule with its ruleId, at that rule's level.
func TestSARIFSatisfiesSchema(t *testing.T) {
	s := sarifSchema(t)
	var reports []*Report
	for _, file := range caseFiles(t) {
		_, broken, fixed := loadCase(t, file)
		reports = append(reports, Lint(broken), Lint(fixed))
	}
	reports = append(reports, Lint(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go")))
	// A task that does not load: its problems are results without a rule index.
	reports = append(reports, Lint(t.TempDir()))
	var b bytes.Buffer
	if err := WriteSARIF(&b, reports, ""); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Fatalf("the SARIF log does not satisfy its schema: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) < 20 {
		t.Errorf("only %d results: the corpus should give more", len(run.Results))
	}
	for _, res := range run.Results {
		if res.RuleIndex == nil {
			if _, ok := ruleOf(res.RuleID); ok {
				t.Errorf("result %s has no ruleIndex", res.RuleID)
			}
			continue
		}
		r := run.Tool.Driver.Rules[*res.RuleIndex]
		if r.ID != res.RuleID {
			t.Errorf("ruleIndex %d is %s, but ruleId is %s", *res.RuleIndex, r.ID, res.RuleID)
		}
		if r.DefaultConfiguration.Level != res.Level {
			t.Errorf("%s: level %s, rule's level %s", res.RuleID, res.Level, r.DefaultConfiguration.Level)
		}
	}
}

// TestSARIFSchemaRejects shows the schema is not vacuous: each mutation
// of a valid log is refused.
func TestSARIFSchemaRejects(t *testing.T) {
	s := sarifSchema(t)
	_, broken, _ := loadCase(t, filepath.Join("testdata", "cases", "surface-ref.txtar"))
	var b bytes.Buffer
	if err := WriteSARIF(&b, []*Report{Lint(broken)}, ""); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ old, new string }{
		{`"version": "2.1.0"`, `"version": "2.0.0"`},
		{`"level": "error"`, `"level": "fatal"`},
		{`"startLine": `, `"startLine": -`},
		{`"ruleId": `, `"rule": `},
		{`"kind": "member"`, `"kind": "member", "extra": 1`},
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(b.String(), m.old, m.new, 1)))
		if err != nil {
			t.Fatalf("%s: %v", m.new, err)
		}
		if err := s.Validate(doc); err == nil {
			t.Errorf("mutation %s → %s was accepted", m.old, m.new)
		}
	}
}

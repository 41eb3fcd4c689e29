package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/agent"
)

// FuzzReviewPayload feeds arbitrary submit_review arguments to the checks
// a review's answer goes through: CheckSubmission and ParseVote never
// panic, and a vote is "fail" only with a citation that grounds in the
// submission's tree (a workspace file's cited line holding a quote that
// is not trivial), whatever the judge sent.
func FuzzReviewPayload(f *testing.F) {
	for _, s := range []string{
		`{"summary":"x","gates":[{"id":"g","verdict":"fail","reasoning":"r","evidence":[{"path":"workspace:main.go","line":3,"quote":"os.Exit(2)"}]}]}`,
		`{"gates":[{"id":"g","verdict":"fail","evidence":[{"path":"workspace:"}]}]}`,
		`{"gates":[{"id":"g","verdict":"fail","evidence":[{"path":"original:old.c","line":1,"quote":"int main(void)"}]}]}`,
		`{"gates":[{"id":"g","verdict":"fail","evidence":[{"location":"workspace:main.go","line":"3","quote":"}"}]}]}`,
		`{"gates":[{"id":"g","verdict":"fail","evidence":[{"file":"main.go","line":1e99,"quote":"MIT"}]}]}`,
		`{"gates":[{"id":"g","verdict":"FAIL"},{"id":"g","verdict":"fail","evidence":"workspace:main.go"}]}`,
		`{"gates":[{"id":"g","verdict":"fail","evidence":[{"path":"workspace:../x","line":-1,"quote":null}]}]}`,
		`{"gates":null}`, `{}`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "ws"), 0o755)
	os.MkdirAll(filepath.Join(dir, "orig"), 0o755)
	os.WriteFile(filepath.Join(dir, "ws", "main.go"), []byte("package main\n\nfunc main() { os.Exit(2) }\n// MIT\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "orig", "old.c"), []byte("int main(void) { return 0; }\n"), 0o644)
	tb, err := agent.NewToolbox([]agent.RootSpec{{Name: "original", Dir: filepath.Join(dir, "orig")}, {Name: "workspace", Dir: filepath.Join(dir, "ws")}}, agent.ToolboxOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { tb.Close() })
	gates := []Gate{{ID: "g", Required: true}}
	f.Fuzz(func(t *testing.T, raw string) {
		var payload map[string]any
		if json.Unmarshal([]byte(raw), &payload) != nil || payload == nil {
			return
		}
		CheckSubmission(payload, gates)
		entries, _ := payload["gates"].([]any)
		for _, e := range entries {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			v, ok := ParseVote(m, gates, tb)
			if !ok {
				continue
			}
			if v.Verdict != Pass && v.Verdict != Fail {
				t.Fatalf("verdict %q", v.Verdict)
			}
			if v.Verdict != Fail {
				continue
			}
			if v.grounded() == 0 {
				t.Fatalf("a fail with no grounded citation: %+v", v)
			}
			for _, c := range v.Citations {
				if !c.Grounded {
					continue
				}
				if strings.HasPrefix(c.Path, "original:") || c.Line < 1 || TrivialQuote(c.Quote) != "" {
					t.Fatalf("a citation grounded that must not: %+v", c)
				}
			}
		}
	})
}

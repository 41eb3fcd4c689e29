package harbor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadScript reads a well-formed script and refuses, naming the file
// and step, each malformed one.
func TestReadScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"steps": [{"delete": "tally.c"}, {"write": {"path": "cmd/main.go", "content": "package main\n", "mode": "0755"}}, {"run": ["go", "build", "."]}]}`)
	s, err := ReadScript(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 3 || s.Steps[0].Delete != "tally.c" || s.Steps[1].Write.Path != "cmd/main.go" || strings.Join(s.Steps[2].Run, " ") != "go build ." {
		t.Fatalf("steps = %+v", s.Steps)
	}
	if m, _ := s.Steps[1].Write.Perm(); m != 0o755 {
		t.Errorf("mode = %o, want 755", m)
	}
	for name, c := range map[string]struct{ body, want string }{
		"two":      {`{"steps": [{"delete": "a", "run": ["x"]}]}`, "steps[1]: a step is exactly one of write, delete, run (it has 2)"},
		"none":     {`{"steps": [{}]}`, "steps[1]: a step is exactly one of"},
		"escape":   {`{"steps": [{"delete": "ok"}, {"delete": "../etc"}]}`, `steps[2]: path "../etc"`},
		"absolute": {`{"steps": [{"write": {"path": "/etc/passwd", "content": ""}}]}`, `steps[1]: path "/etc/passwd"`},
		"unclean":  {`{"steps": [{"delete": "a/../../b"}]}`, `path "a/../../b"`},
		"mode":     {`{"steps": [{"write": {"path": "a", "content": "", "mode": "rwx"}}]}`, `steps[1].write: mode "rwx"`},
		"unknown":  {`{"steps": [{"copy": "a"}]}`, `unknown field "copy"`},
		"program":  {`{"steps": [{"run": [""]}]}`, "steps[1].run: the program is empty"},
	} {
		p := write(name+".json", c.body)
		_, err := ReadScript(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", name, err, p, c.want)
		}
	}
}

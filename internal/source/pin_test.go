package source

import (
	"os"
	"path/filepath"
	"testing"
)

const d1 = "1111111111111111111111111111111111111111111111111111111111111111"
const d2 = "2222222222222222222222222222222222222222222222222222222222222222"

func TestPin(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		changed        bool
	}{
		{
			name: "adds a line to a braced struct",
			in:   "package srb\n\nstate_a: {\n\tproject: \"x\" // the project\n\tstack:   \"C\"\n}\n\nid: \"a\"\n",
			want: "package srb\n\nstate_a: {\n\tproject: \"x\" // the project\n\tstack:   \"C\"\n\tsha256: \"" + d1 + "\"\n}\n\nid: \"a\"\n", changed: true,
		},
		{
			name: "replaces an existing pin in place",
			in:   "state_a: {\n\tsha256: \"" + d2 + "\" // pinned\n}\n",
			want: "state_a: {\n\tsha256: \"" + d1 + "\" // pinned\n}\n", changed: true,
		},
		{
			name: "leaves an equal pin alone",
			in:   "state_a: {\n\tsha256: \"" + d1 + "\"\n}\n",
			want: "state_a: {\n\tsha256: \"" + d1 + "\"\n}\n",
		},
		{
			name: "a one-line struct",
			in:   "state_a: {project: \"x\"}\n",
			want: "state_a: {project: \"x\", sha256: \"" + d1 + "\"}\n", changed: true,
		},
		{
			name: "shorthand declaration is replaced",
			in:   "state_a: project: \"x\"\nstate_a: sha256: \"" + d2 + "\"\n",
			want: "state_a: project: \"x\"\nstate_a: sha256: \"" + d1 + "\"\n", changed: true,
		},
		{
			name: "no braced state_a: a declaration is appended",
			in:   "state_a: project: \"x\"",
			want: "state_a: project: \"x\"\n\nstate_a: sha256: \"" + d1 + "\"\n", changed: true,
		},
		{
			name: "indented struct inside the file keeps its indentation",
			in:   "state_a: {\n    project: \"x\"\n    }\n",
			want: "state_a: {\n    project: \"x\"\n    \tsha256: \"" + d1 + "\"\n    }\n", changed: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "task.cue")
			if err := os.WriteFile(p, []byte(c.in), 0o640); err != nil {
				t.Fatal(err)
			}
			changed, err := Pin(p, d1)
			if err != nil {
				t.Fatal(err)
			}
			if changed != c.changed {
				t.Errorf("changed = %v, want %v", changed, c.changed)
			}
			got, _ := os.ReadFile(p)
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v changed", st.Mode().Perm())
			}
		})
	}
}

func TestPinRefusesNonLiteral(t *testing.T) {
	p := filepath.Join(t.TempDir(), "task.cue")
	os.WriteFile(p, []byte("x: \""+d2+"\"\nstate_a: {\n\tsha256: x\n}\n"), 0o644)
	if _, err := Pin(p, d1); err == nil {
		t.Fatal("want an error for a non-literal sha256")
	}
}

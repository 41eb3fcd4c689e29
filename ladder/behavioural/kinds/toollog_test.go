package kinds

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// A watched tool that is a script is recognised by its interpreter's
// file, not its name: the kernel executes the file the #! line names with
// links resolved (Debian's meson says /usr/bin/python3, a link, and the
// kernel runs python3.11). A script whose #! line names a link to
// /bin/sh's shell, run directly or through "#!/usr/bin/env NAME", is
// recorded as the tool; a copy of that shell elsewhere, of the same name,
// running the script is not its interpreter and records nothing.
func TestToolLogScriptInterpreterByFile(t *testing.T) {
	shell, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	body, err := os.ReadFile(shell)
	if err != nil {
		t.Skip(err)
	}
	dir := searchableTempDir(t)
	bin, links, other := filepath.Join(dir, "bin"), filepath.Join(dir, "links"), filepath.Join(dir, "other")
	for _, d := range []string{bin, links, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// "interp" is the shell under another name (as python3 is python3.11).
	if err := os.Symlink(shell, filepath.Join(links, "interp")); err != nil {
		t.Fatal(err)
	}
	// A copy of the shell: another file of the same base name.
	copied := filepath.Join(other, filepath.Base(shell))
	if err := os.WriteFile(copied, body, 0o755); err != nil {
		t.Fatal(err)
	}
	tool, envTool := filepath.Join(bin, "mytool"), filepath.Join(bin, "envtool")
	if err := os.WriteFile(tool, []byte("#!"+filepath.Join(links, "interp")+"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envTool, []byte("#!/usr/bin/env interp\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + strings.Join([]string{bin, links, "/usr/bin", "/bin"}, ":")}
	l := &toolLog{root: dir, tools: resolveTools([]string{"mytool", "envtool"}, env)}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{tool}, "mytool"},
		{[]string{envTool}, "envtool"},
		{[]string{copied, tool}, ""},
		{[]string{copied, envTool}, ""},
	} {
		e, err := proc.Run(context.Background(), proc.Spec{Argv: c.argv, Env: env, Dir: dir, TraceExecs: true})
		if err != nil || e.Err != nil || e.Code != 0 {
			t.Fatalf("%v: %v %+v", c.argv, err, e)
		}
		var got []string
		for _, x := range e.Execs {
			got = append(got, l.match(x)...)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v recorded as %q, want %q (execs %+v)", c.argv, got, c.want, e.Execs)
		}
	}
}

package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// trees makes an original and a workspace:
//
//	original/tally.c, README          workspace/main.go, README,
//	                                  workspace/bin/tally (ELF), workspace/out -> outside,
//	                                  workspace/node_modules/x.js
func trees(t *testing.T) (orig, ws, outside string) {
	t.Helper()
	base := t.TempDir()
	orig, ws, outside = filepath.Join(base, "original"), filepath.Join(base, "workspace"), filepath.Join(base, "secret")
	for _, d := range []string{orig, ws, outside, filepath.Join(ws, "bin"), filepath.Join(ws, "node_modules"), filepath.Join(ws, "pkg")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	write(t, filepath.Join(orig, "tally.c"), "#include <stdio.h>\nint main(void) {\n\treturn 0;\n}\n")
	write(t, filepath.Join(orig, "README"), "tally counts\n")
	write(t, filepath.Join(ws, "README"), "tally counts, in Go\n")
	write(t, filepath.Join(ws, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() {\n\t// Count   the WORDS.\n\tfmt.Println(count())\n}\n\nfunc count() int { return 0 }\n")
	write(t, filepath.Join(ws, "pkg", "util.go"), "package pkg\n")
	write(t, filepath.Join(ws, "bin", "tally"), "\x7fELF\x02\x01\x01\x00\x00\x00")
	write(t, filepath.Join(ws, "node_modules", "x.js"), "count()\n")
	write(t, filepath.Join(outside, "key"), "TOP SECRET count\n")
	must(t, os.Symlink(outside, filepath.Join(ws, "out")))
	must(t, os.Symlink("main.go", filepath.Join(ws, "link.go")))
	return orig, ws, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) { t.Helper(); must(t, os.WriteFile(p, []byte(s), 0o644)) }

// recorder is a Runner that records what it was asked to run.
type recorder struct {
	got []Command
	res RunResult
}

func (r *recorder) Run(_ context.Context, c Command) (RunResult, error) {
	r.got = append(r.got, c)
	return r.res, nil
}

func toolbox(t *testing.T, opts ToolboxOptions) (*Toolbox, string, string) {
	t.Helper()
	orig, ws, _ := trees(t)
	tb, err := NewToolbox([]RootSpec{{Name: "original", Dir: orig}, {Name: "workspace", Dir: ws}}, opts)
	must(t, err)
	t.Cleanup(func() { tb.Close() })
	return tb, orig, ws
}

func TestDispatch(t *testing.T) {
	tb, orig, ws := toolbox(t, ToolboxOptions{})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want []string // substrings, in order
		not  []string
	}{
		{"list root dirs first, noise skipped, links shown", ToolListDir, map[string]any{"path": "workspace:"},
			[]string{"workspace:/", "bin/", "node_modules/  [skipped]", "pkg/", "README  (20 B)", "link.go", " -> main.go", "main.go  (", "out", " -> " + filepath.Dir(ws) + "/secret"}, []string{"util.go", "x.js"}},
		{"list depth 2", ToolListDir, map[string]any{"path": "workspace:", "depth": 2.0}, []string{"pkg/", "  util.go  (12 B)"}, []string{"x.js"}},
		{"list a file", ToolListDir, map[string]any{"path": "original:tally.c"}, []string{"original:tally.c  (", "mode 0644"}, nil},
		{"fetch numbered", ToolFetchSource, map[string]any{"path": "workspace:main.go", "start_line": 5.0, "end_line": 6.0},
			[]string{"workspace:main.go  lines 5-6 of 10\n     5\tfunc main() {\n     6\t\t// Count   the WORDS."}, []string{"fmt.Println"}},
		{"fetch bare relative is workspace", ToolFetchSource, map[string]any{"path": "README"}, []string{"workspace:README  lines 1-1 of 1", "in Go"}, nil},
		{"fetch absolute inside a root", ToolFetchSource, map[string]any{"path": filepath.Join(orig, "tally.c")}, []string{"original:tally.c  lines 1-4 of 4"}, nil},
		{"fetch a link inside the root", ToolFetchSource, map[string]any{"path": "workspace:link.go"}, []string{"package main"}, nil},
		{"claude code's Read arguments translated", ToolFetchSource, map[string]any{"file_path": "workspace:main.go", "offset": 3.0, "limit": 2.0},
			[]string{"lines 3-4 of 10", "import \"fmt\""}, nil},
		{"unknown argument names the valid ones", ToolFetchSource, map[string]any{"path": "workspace:main.go", "lines": "1-3"},
			[]string{`ERROR: fetch_source does not take "lines". Its arguments are: end_line, path, start_line. Nothing ran; re-send the call using those names.`}, nil},
		{"a link out of the root is refused", ToolFetchSource, map[string]any{"path": "workspace:out/key"},
			[]string{`ERROR: "workspace:out/key" resolves outside root workspace=`, "(a symbolic link, most likely)"}, []string{"SECRET"}},
		{"dot-dot out of the root is refused", ToolFetchSource, map[string]any{"path": "workspace:../secret/key"}, []string{`ERROR: "workspace:../secret/key" escapes root workspace=`}, []string{"SECRET"}},
		{"an absolute path outside every root", ToolFetchSource, map[string]any{"path": filepath.Join(filepath.Dir(ws), "secret", "key")}, []string{"is outside every readable root; the roots are original=", ", workspace="}, []string{"SECRET"}},
		{"missing file", ToolFetchSource, map[string]any{"path": "workspace:nope.go"}, []string{`ERROR: "workspace:nope.go" does not exist in root workspace=`}, nil},
		{"a directory", ToolFetchSource, map[string]any{"path": "workspace:pkg"}, []string{`ERROR: "workspace:pkg" is a directory; use list_dir`}, nil},
		{"past the end", ToolFetchSource, map[string]any{"path": "workspace:main.go", "start_line": 40.0}, []string{"has 10 lines; start_line 40 is past the end"}, nil},
		{"wrong type", ToolFetchSource, map[string]any{"path": 3.0}, []string{"ERROR: path must be a string, not a number"}, nil},
		{"binary described without run", ToolFetchSource, map[string]any{"path": "workspace:bin/tally"},
			[]string{"workspace:bin/tally is binary (10 B, first bytes say ELF). No tool in this stage's toolbox decodes it -- there is no run here"}, []string{"Use run"}},
		{"search", ToolSearch, map[string]any{"pattern": "count\\("}, []string{"2 hit(s) for \"count\\\\(\" in", "workspace:main.go:7: fmt.Println(count())", "workspace:main.go:10: func count() int { return 0 }"}, []string{"x.js", "SECRET"}},
		{"search ignore case with glob", ToolSearch, map[string]any{"pattern": "words", "ignore_case": true, "glob": "*.go"}, []string{"workspace:main.go:6:"}, nil},
		{"search the original", ToolSearch, map[string]any{"pattern": "stdio", "path": "original:"}, []string{"original:tally.c:1: #include <stdio.h>"}, nil},
		{"search nothing", ToolSearch, map[string]any{"pattern": "zebra", "glob": "*.c"}, []string{"no match for \"zebra\" under workspace: (glob *.c); 0 files scanned"}, nil},
		{"bad regexp", ToolSearch, map[string]any{"pattern": "("}, []string{"ERROR: bad regular expression \"(\""}, nil},
		{"diff new file", ToolDiff, map[string]any{"path": "main.go"}, []string{"main.go does not exist in original; it is new in workspace (10 lines)."}, nil},
		{"diff deleted file", ToolDiff, map[string]any{"path": "tally.c"}, []string{"tally.c exists in original (4 lines) but is ABSENT from workspace"}, nil},
		{"diff changed file", ToolDiff, map[string]any{"path": "workspace:README"}, []string{"--- original/README", "+++ workspace/README", "-tally counts", "+tally counts, in Go"}, nil},
		{"diff a binary", ToolDiff, map[string]any{"path": "bin/tally"}, []string{"bin/tally is not a text file in workspace (a directory, a binary, a file over 16777216 B, or not a regular file); diff compares text only."}, nil},
		{"diff nothing", ToolDiff, map[string]any{"path": "nope"}, []string{`ERROR: "nope" exists in neither original nor workspace`}, nil},
		{"diff unknown root", ToolDiff, map[string]any{"path": "README", "left": "state-a"}, []string{`ERROR: unknown root "state-a"; roots are original, workspace`}, nil},
		{"run is not offered", ToolRun, map[string]any{"argv": []any{"ls"}}, []string{`ERROR: no such tool "run"`}, nil},
		{"read_file does not exist", "read_file", map[string]any{"path": "main.go"}, []string{`ERROR: no such tool "read_file"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tb.Dispatch(ctx, tc.tool, tc.args)
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing %q in:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in:\n%s", n, got)
				}
			}
		})
	}
	if tb.RewrittenArgs() != 1 {
		t.Errorf("rewritten args %d, want 1", tb.RewrittenArgs())
	}
	if got := strings.Join(tb.Reads(), " "); got != "original:tally.c workspace:README workspace:link.go workspace:main.go" {
		t.Errorf("reads: %s", got)
	}
}

func TestRun(t *testing.T) {
	rec := &recorder{res: RunResult{ExitCode: 3, Stdout: []byte("out\n"), Stderr: []byte("warn\n")}}
	tb, _, ws := toolbox(t, ToolboxOptions{AllowedCommands: []string{"nm", "go"}, Runner: rec, RunTimeout: 5 * time.Second,
		Getenv: func(k string) string { return map[string]string{"PATH": "/usr/bin", "OPENAI_API_KEY": "secret"}[k] }})
	ctx := context.Background()
	if !tb.Handles(ToolRun) {
		t.Fatal("run is offered when commands are allowed")
	}
	got := tb.Dispatch(ctx, ToolRun, map[string]any{"argv": []any{"/usr/bin/nm", "bin/tally"}, "cwd": "workspace:pkg"})
	want := "$ /usr/bin/nm bin/tally  (cwd " + ws + "/pkg)\nexit 3\nout\n\n[stderr]\nwarn\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c := rec.got[0]
	if strings.Join(c.Env, " ") != "PATH=/usr/bin HOME=/tmp LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1" || c.Timeout != 5*time.Second {
		t.Errorf("command: %+v", c)
	}
	for args, msg := range map[string]map[string]any{
		`ERROR: "cat" is not permitted for this task. Permitted: nm, go`:                                                   {"argv": []any{"cat", "/etc/passwd"}},
		"ERROR: argv must be a list of strings -- there is no shell":                                                       {"argv": "nm bin/tally"},
		`ERROR: run does not take "shell". Its arguments are: argv, cwd. Nothing ran; re-send the call using those names.`: {"argv": []any{"nm"}, "shell": true},
		`ERROR: "workspace:out" resolves outside root`:                                                                     {"argv": []any{"nm"}, "cwd": "workspace:out"},
	} {
		if got := tb.Dispatch(ctx, ToolRun, msg); !strings.HasPrefix(got, args) {
			t.Errorf("got %q, want prefix %q", got, args)
		}
	}
	if len(rec.got) != 1 {
		t.Errorf("refused calls ran something: %d runs", len(rec.got))
	}
	if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:bin/tally"}); !strings.HasSuffix(got, "Use run with a suitable inspection tool if this matters.") {
		t.Errorf("binary advice with run: %s", got)
	}
}

func TestLocalRunner(t *testing.T) {
	dir := t.TempDir()
	res, err := LocalRunner{}.Run(context.Background(), Command{Argv: []string{"sh", "-c", "pwd; echo $TZ; echo oops >&2; exit 4"}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin", "TZ=UTC"}, Timeout: 5 * time.Second})
	if err != nil || res.ExitCode != 4 || string(res.Stdout) != dir+"\nUTC\n" || string(res.Stderr) != "oops\n" {
		t.Errorf("res %+v err %v", res, err)
	}
	start := time.Now()
	res, err = LocalRunner{}.Run(context.Background(), Command{Argv: []string{"sh", "-c", "sleep 30 & sleep 30"}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 200 * time.Millisecond})
	if err != nil || !res.TimedOut || res.ExitCode != -1 || time.Since(start) > 5*time.Second {
		t.Errorf("timeout: %+v %v after %s", res, err, time.Since(start))
	}
	if _, err := (LocalRunner{}).Run(context.Background(), Command{Argv: []string{"/no/such/program"}, Timeout: time.Second}); err == nil {
		t.Error("an unstartable program is an error")
	}
}

func TestGround(t *testing.T) {
	tb, _, _ := toolbox(t, ToolboxOptions{})
	for _, tc := range []struct {
		path  string
		line  int
		quote string
		ok    bool
		note  string
	}{
		{"workspace:main.go", 7, "fmt.Println(count())", true, "verified"},
		{"workspace:main.go", 6, "count THE words", true, "verified"},                                              // white space and case ignored
		{"workspace:main.go", 9, "// Count the words.", true, "verified"},                                          // three lines away
		{"workspace:main.go", 10, "// Count the words.", false, "quoted text not found within 3 lines of line 10"}, // four lines away
		{"workspace:main.go", 1, "return 0", false, "quoted text not found within 3 lines of line 1"},
		{"workspace:main.go", 11, "", false, "cited line 11 but workspace:main.go has 10 lines"},
		{"workspace:main.go", 0, "func count", true, "verified"},
		{"workspace:main.go", 0, "func tally", false, "quoted text not found in file"},
		{"workspace:pkg", 0, "", true, "directory exists"},
		{"workspace:pkg", 2, "", false, "cited a directory with a line number"},
		{"workspace:bin/tally", 0, "", true, "binary file"},
		{"workspace:bin/tally", 1, "ELF", false, "binary file"},
		{"workspace:out/key", 1, "SECRET", false, "resolves outside root"},
		{"workspace:gone.go", 1, "", false, "does not exist"},
		{"original:tally.c", 3, "return 0;", true, "verified"},
	} {
		ok, note := tb.Ground(tc.path, tc.line, tc.quote)
		if ok != tc.ok || !strings.Contains(note, tc.note) {
			t.Errorf("Ground(%s, %d, %q) = %v %q; want %v %q", tc.path, tc.line, tc.quote, ok, note, tc.ok, tc.note)
		}
	}
}

func TestRootlessToolbox(t *testing.T) {
	tb, err := NewToolbox(nil, ToolboxOptions{})
	must(t, err)
	if len(tb.Specs()) != 0 || tb.Handles(ToolListDir) {
		t.Error("a rootless toolbox offers no tools")
	}
	if got := tb.Dispatch(context.Background(), ToolListDir, map[string]any{"path": "."}); got != `ERROR: no such tool "list_dir"` {
		t.Errorf("got %q", got)
	}
	if ok, note := tb.Ground("workspace:x", 1, ""); ok || !strings.Contains(note, "no readable roots") {
		t.Errorf("ground %v %q", ok, note)
	}
}

func TestSpecsNeverReadFile(t *testing.T) {
	tb, _, _ := toolbox(t, ToolboxOptions{AllowedCommands: []string{"nm"}})
	var names []string
	for _, s := range tb.Specs() {
		names = append(names, s.Name)
		if strings.Contains(s.Description, "read_file") {
			t.Errorf("%s mentions read_file", s.Name)
		}
	}
	if got := strings.Join(names, ","); got != "list_dir,fetch_source,search,diff,run" {
		t.Errorf("tools %s", got)
	}
}

// A FIFO or a huge file in a submission must not hang or exhaust the
// stage: only regular files are read, at most MaxFileBytes of each.
func TestHostileFiles(t *testing.T) {
	tb, _, ws := toolbox(t, ToolboxOptions{})
	must(t, syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644))
	big := filepath.Join(ws, "big.txt")
	f, err := os.Create(big)
	must(t, err)
	must(t, f.Truncate(MaxFileBytes+10))
	f.Close()
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:pipe"}); !strings.Contains(got, "not a regular file") {
			t.Errorf("fetch a FIFO: %s", got)
		}
		if got := tb.Dispatch(ctx, ToolSearch, map[string]any{"pattern": "x", "path": "workspace:pipe"}); !strings.HasPrefix(got, "no match") {
			t.Errorf("search a FIFO: %s", got)
		}
		if got := tb.Dispatch(ctx, ToolSearch, map[string]any{"pattern": "never-there"}); !strings.HasPrefix(got, "no match") {
			t.Errorf("search the workspace: %s", got)
		}
		if ok, note := tb.Ground("workspace:pipe", 1, ""); ok || !strings.Contains(note, "not a regular file") {
			t.Errorf("ground a FIFO: %v %s", ok, note)
		}
		if got := tb.Dispatch(ctx, ToolDiff, map[string]any{"path": "pipe"}); !strings.HasPrefix(got, "pipe is not a text file in workspace (a directory, a binary,") {
			t.Errorf("diff a FIFO: %s", got)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang detector, not a speed check
		t.Fatal("a FIFO hung the toolbox")
	}
	// The sparse file is all NUL bytes, so it is described as binary.
	if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:big.txt"}); !strings.Contains(got, "is binary (16777216 B)") {
		t.Errorf("big file: %.200s", got)
	}
	write(t, big, strings.Repeat("line\n", MaxFileBytes/5+3))
	if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:big.txt", "end_line": 2.0}); !strings.Contains(got, "lines 1-2 of 3355444  [the file is longer than the 16777216 B any tool reads") {
		t.Errorf("big file: %.300s", got)
	}
}

// TestLinesPastTheReadBound: a line past the MaxFileBytes any tool reads
// at once can still be fetched by its number and cited (the break attempt
// of issue 14: a kept C source after 16 MiB of blank lines could be
// neither seen nor cited, so a fail about it grounded nothing and its gate
// passed).
func TestLinesPastTheReadBound(t *testing.T) {
	tb, _, ws := toolbox(t, ToolboxOptions{})
	pad := MaxFileBytes + 5
	body := strings.Repeat("\n", pad) + "/* kept */\nint main(int argc, char **argv) {\n\treturn count(stdin);\n}\n"
	write(t, filepath.Join(ws, "kept.c"), body)
	line := pad + 2
	if ok, note := tb.GroundLine("workspace", "workspace:kept.c", line, "int main(int argc, char **argv) {"); !ok {
		t.Errorf("a line past the bound did not ground: %s", note)
	}
	if ok, _ := tb.GroundLine("workspace", "workspace:kept.c", line, "int main(void) {"); ok {
		t.Errorf("a quote the file does not hold grounded past the bound")
	}
	if ok, note := tb.GroundLine("workspace", "workspace:kept.c", pad+40, "return count(stdin);"); ok || !strings.Contains(note, "lines") {
		t.Errorf("a line past the file's end: %v %s", ok, note)
	}
	got := tb.Dispatch(context.Background(), ToolFetchSource, map[string]any{"path": "workspace:kept.c", "start_line": float64(line - 1), "end_line": float64(line + 1)})
	if !strings.Contains(got, "int main(int argc, char **argv) {") || !strings.Contains(got, strconv.Itoa(line)+"\t") {
		t.Errorf("fetch past the bound: %.400s", got)
	}
	// search streams past the bound too, with the lines' real numbers.
	got = tb.Dispatch(context.Background(), ToolSearch, map[string]any{"pattern": `count\(stdin\)`, "path": "workspace:"})
	if want := "workspace:kept.c:" + strconv.Itoa(line+1) + ": return count(stdin);"; !strings.Contains(got, want) {
		t.Errorf("search past the bound: want %q in %.400s", want, got)
	}
}

// TestNULsDoNotHideAText: a kept source with NUL bytes in a comment (one,
// or a thousand) is text to every tool the judge reads with, each NUL
// shown as ␀, and a line of it can be quoted and cited, with or without
// the ␀ (the break attempt of 2026-12-05: one NUL in a C file's first
// comment made fetch_source call it binary, search skip it and diff refuse
// it, so no honest judge could quote a line and a fail citing it could not
// ground). An executable, an archive, an image and a run of NULs alone
// stay binary.
func TestNULsDoNotHideAText(t *testing.T) {
	tb, _, ws := toolbox(t, ToolboxOptions{})
	ctx := context.Background()
	src := "/* legacy\x00 tally */\n#include <stdio.h>\nint main(void) {\n\treturn count(stdin);\n}\n"
	write(t, filepath.Join(ws, "one.c"), src)
	write(t, filepath.Join(ws, "many.c"), "/*"+strings.Repeat("\x00", 9000)+"*/\n"+src)
	got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:one.c"})
	if !strings.Contains(got, "1\t/* legacy␀ tally */") || !strings.Contains(got, "4\t\treturn count(stdin);") {
		t.Errorf("fetch_source of a text with a NUL: %.300s", got)
	}
	got = tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "workspace:many.c", "start_line": 4.0, "end_line": 4.0})
	if !strings.Contains(got, "4\tint main(void) {") {
		t.Errorf("fetch_source of a text with 9000 NULs: %.300s", got)
	}
	got = tb.Dispatch(ctx, ToolSearch, map[string]any{"pattern": `int main`, "path": "workspace:"})
	for _, want := range []string{"workspace:one.c:3: int main(void) {", "workspace:many.c:4: int main(void) {"} {
		if !strings.Contains(got, want) {
			t.Errorf("search: want %q in %.400s", want, got)
		}
	}
	write(t, filepath.Join(filepath.Dir(ws), "original", "one.c"), strings.Replace(src, "\x00", "", 1))
	got = tb.Dispatch(ctx, ToolDiff, map[string]any{"path": "one.c"})
	if !strings.Contains(got, "+/* legacy␀ tally */") || !strings.Contains(got, "-/* legacy tally */") {
		t.Errorf("diff of a text with a NUL: %.400s", got)
	}
	for _, q := range []string{"/* legacy␀ tally */", "int main(void) {", "/* legacy\x00 tally */"} {
		if ok, note := tb.GroundLine("workspace", "workspace:one.c", 2, q); !ok {
			t.Errorf("GroundLine(one.c, 2, %q): %s", q, note)
		}
	}
	if ok, note := tb.Ground("workspace:many.c", 5, "return count(stdin);"); !ok {
		t.Errorf("Ground(many.c, 5): %s", note)
	}
	for name, body := range map[string]string{
		"elf":  "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00",
		"zip":  "PK\x03\x04\x14\x00\x00\x00\x08\x00\x9c\x8b\x83\x58\xd3\x1a\x0e\xf1\x05",
		"png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa",
		"nuls": strings.Repeat("\x00", 100),
	} {
		if !isBinary([]byte(body), binaryProbe) {
			t.Errorf("%s read as text", name)
		}
	}
	if isBinary([]byte("a\x00b\xe2\x82"), 4) {
		t.Error("a rune cut at the probe's end made a text binary")
	}
}

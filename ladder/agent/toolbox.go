package agent

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/swe-refactor-bench/srb/ladder/models"
)

// Caps of the toolbox, each announced in the output when it bites
// (HARNESS.md §4.1.2).
const (
	MaxReadBytes   = 60000    // fetch_source output
	MaxSearchHits  = 200      // search hits
	MaxDirEntries  = 400      // list_dir entries
	MaxDiffLines   = 1200     // diff lines
	MaxRunOutput   = 20000    // run output bytes
	MaxSearchLine  = 220      // characters of a search hit's line
	MaxFileBytes   = 16 << 20 // bytes of one file any tool reads
	binaryProbe    = 8000     // bytes looked at to tell a binary: fetch_source, diff, grounding
	searchProbe    = 4000     // bytes looked at to tell a binary: search
	DefaultRunTime = 120 * time.Second
)

// NoiseDirs are skipped when walking, unless a path names them directly.
var NoiseDirs = []string{".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache",
	".pytest_cache", ".ruff_cache", ".venv", "venv", ".tox", ".gradle", ".idea", ".cargo", ".rustup"}

// Tool names the toolbox offers.
const (
	ToolListDir     = "list_dir"
	ToolFetchSource = "fetch_source"
	ToolSearch      = "search"
	ToolDiff        = "diff"
	ToolRun         = "run"
)

// RootSpec names one directory the model may read: Name is what it types
// before the colon ("original", "workspace"), Dir the directory the file
// tools read. Shown is the path the model is shown for it, the prefix an
// absolute path in a tool call resolves under, and the run tool's working
// directory: the root's mount point when run executes in a stage's
// container (the audit image's /opt/original, /opt/workspace) while the
// file tools read the host's copy of the same tree. "" means Dir.
type RootSpec struct {
	Name  string
	Dir   string
	Shown string
}

// root is an open RootSpec.
type root struct {
	name string
	dir  string // as shown to the model: RootSpec.Shown, else Dir; absolute, cleaned
	r    *os.Root
}

// ToolboxOptions configure a [Toolbox]. AllowedCommands are the program
// names (argv[0] or its base name) run accepts; none means run is not
// offered. RunTimeout defaults to 120 s. Runner defaults to [LocalRunner].
// Env is the run tool's environment on top of PATH, HOME, LANG, LC_ALL, TZ
// and PYTHONDONTWRITEBYTECODE; Getenv reads PATH and HOME (os.Getenv when
// nil). DefaultRoot is the root of a bare relative path ("workspace").
type ToolboxOptions struct {
	AllowedCommands []string
	RunTimeout      time.Duration
	Runner          Runner
	DefaultRoot     string
	Getenv          func(string) string
}

// Toolbox is the model's read access to a set of roots (HARNESS.md
// §4.1.2). Paths are written "root:relative/path", as an absolute path
// inside a root, or as a bare relative path (the default root). Every file
// is opened through an [os.Root], so a path or a symbolic link that leads
// out of its root is refused. A Toolbox is not safe for concurrent use.
type Toolbox struct {
	roots   []*root
	opts    ToolboxOptions
	reads   map[string]bool
	calls   int
	rewrite int
}

// NewToolbox opens every root (each must be an existing directory) and
// returns the toolbox; Close releases them. A toolbox with no roots offers
// no tools.
func NewToolbox(specs []RootSpec, opts ToolboxOptions) (*Toolbox, error) {
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = DefaultRunTime
	}
	if opts.Runner == nil {
		opts.Runner = LocalRunner{}
	}
	if opts.DefaultRoot == "" {
		opts.DefaultRoot = "workspace"
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	t := &Toolbox{opts: opts, reads: map[string]bool{}}
	for _, s := range specs {
		abs, err := filepath.Abs(s.Dir)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("toolbox: root %s: %w", s.Name, err)
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("toolbox: root %s: %w", s.Name, err)
		}
		shown := filepath.Clean(abs)
		if s.Shown != "" {
			if !path.IsAbs(s.Shown) {
				r.Close()
				t.Close()
				return nil, fmt.Errorf("toolbox: root %s: shown path %q is not absolute", s.Name, s.Shown)
			}
			shown = path.Clean(s.Shown)
		}
		t.roots = append(t.roots, &root{name: s.Name, dir: shown, r: r})
	}
	return t, nil
}

// Close releases the roots.
func (t *Toolbox) Close() error {
	var errs []error
	for _, r := range t.roots {
		errs = append(errs, r.r.Close())
	}
	return errors.Join(errs...)
}

// Roots returns the roots as "name = dir" (the path shown, [RootSpec]), in order, joined by ", " (the
// {{roots}} placeholder).
func (t *Toolbox) Roots() string {
	parts := make([]string, len(t.roots))
	for i, r := range t.roots {
		parts[i] = r.name + " = " + r.dir
	}
	return strings.Join(parts, ", ")
}

// RootDir returns the path shown for the root called name ([RootSpec]), or "".
func (t *Toolbox) RootDir(name string) string {
	if r := t.root(name); r != nil {
		return r.dir
	}
	return ""
}

// AllowedCommands returns the programs run accepts.
func (t *Toolbox) AllowedCommands() []string { return slices.Clone(t.opts.AllowedCommands) }

// Calls is the number of tool calls dispatched.
func (t *Toolbox) Calls() int { return t.calls }

// Reads returns every file the model read (fetch_source, the right side of
// diff) as "root:rel", sorted.
func (t *Toolbox) Reads() []string {
	out := make([]string, 0, len(t.reads))
	for k := range t.reads {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RewrittenArgs counts fetch_source calls whose arguments arrived under a
// gateway's names (file_path, offset, limit) and were translated
// (HARNESS.md §7 bug 46).
func (t *Toolbox) RewrittenArgs() int { return t.rewrite }

func (t *Toolbox) root(name string) *root {
	for _, r := range t.roots {
		if r.name == name {
			return r
		}
	}
	return nil
}

func (t *Toolbox) rootNames() string {
	names := make([]string, len(t.roots))
	for i, r := range t.roots {
		names[i] = r.name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// toolError is a mistake of the model's, returned to it as "ERROR: …".
type toolError struct{ msg string }

// Error implements error.
func (e *toolError) Error() string { return e.msg }

func errf(format string, args ...any) error { return &toolError{fmt.Sprintf(format, args...)} }

// resolve maps a path as the model wrote it to a root and a slash-separated
// path relative to it ("." for the root itself). With mustExist it is
// stat'ed through the root, which refuses a link out of it.
func (t *Toolbox) resolve(raw string, mustExist bool) (*root, string, error) {
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil, "", errf("path must be a non-empty string")
	}
	if len(t.roots) == 0 {
		return nil, "", errf("this toolbox has no readable roots, so no path can be resolved; it offers no filesystem tools")
	}
	var r *root
	rel := text
	if name, rest, ok := strings.Cut(text, ":"); ok && !strings.HasPrefix(text, "/") {
		if rr := t.root(name); rr != nil {
			r, rel = rr, strings.TrimLeft(rest, "/")
		}
	}
	if r == nil && strings.HasPrefix(text, "/") {
		clean := filepath.Clean(text)
		for _, rr := range t.roots {
			if clean == rr.dir || strings.HasPrefix(clean, rr.dir+"/") {
				r = rr
				rel = strings.TrimPrefix(strings.TrimPrefix(clean, rr.dir), "/")
				break
			}
		}
		if r == nil {
			var parts []string
			for _, rr := range t.roots {
				parts = append(parts, rr.name+"="+rr.dir)
			}
			return nil, "", errf("%q is outside every readable root; the roots are %s", raw, strings.Join(parts, ", "))
		}
	}
	if r == nil {
		r = t.root(t.opts.DefaultRoot)
		if r == nil {
			r = t.roots[0]
		}
	}
	if c := path.Clean(filepath.ToSlash(rel)); c == ".." || strings.HasPrefix(c, "../") {
		return nil, "", errf("%q escapes root %s=%s", raw, r.name, r.dir)
	}
	rel = path.Clean("/" + filepath.ToSlash(rel))[1:]
	if rel == "" {
		rel = "."
	}
	if mustExist {
		if _, err := r.r.Stat(rel); err != nil {
			return nil, "", t.pathError(raw, r, err)
		}
	}
	return r, rel, nil
}

func (t *Toolbox) pathError(raw string, r *root, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errf("%q does not exist in root %s=%s", raw, r.name, r.dir)
	case strings.Contains(err.Error(), "escapes"):
		return errf("%q resolves outside root %s=%s (a symbolic link, most likely); it is not readable", raw, r.name, r.dir)
	}
	return errf("%q cannot be read: %v", raw, unwrapPath(err))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func display(r *root, rel string) string {
	if rel == "." {
		return r.name + ":"
	}
	return r.name + ":" + rel
}

// --- specs ----------------------------------------------------------------

// Specs returns the tools this toolbox offers, in order: list_dir,
// fetch_source (deliberately not read_file: HARNESS.md §7 bug 46), search,
// diff, and run when commands are allowed. A rootless toolbox offers none.
func (t *Toolbox) Specs() []models.ToolSpec {
	if len(t.roots) == 0 {
		return nil
	}
	prefix := fmt.Sprintf("Paths may be written 'root:relative/path' (roots: %s), an absolute path inside a root, or a bare relative path, which is taken as %s:.", t.rootNames(), t.opts.DefaultRoot)
	str := func(desc string) map[string]any {
		m := map[string]any{"type": "string"}
		if desc != "" {
			m["description"] = desc
		}
		return m
	}
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	specs := []models.ToolSpec{
		{Name: ToolListDir, Description: "List a directory. " + prefix + " Noise directories (.git, node_modules, __pycache__, build caches) are skipped unless named directly.",
			Schema: obj(map[string]any{"path": str(""), "depth": map[string]any{"type": "integer", "minimum": 1, "maximum": 4, "description": "Recursion depth, default 1."}}, "path")},
		{Name: ToolFetchSource, Description: fmt.Sprintf("Read a file, with line numbers. %s Use start_line and end_line for a slice of a long file; output is capped at %d bytes and says so when it truncates.", prefix, MaxReadBytes),
			Schema: obj(map[string]any{"path": str(""), "start_line": map[string]any{"type": "integer", "minimum": 1}, "end_line": map[string]any{"type": "integer", "minimum": 1}}, "path")},
		{Name: ToolSearch, Description: fmt.Sprintf("Search file contents with a regular expression (RE2 syntax), reporting root:path:line for each hit (up to %d). %s Restrict with 'glob' on the file name (e.g. '*.go', 'Makefile').", MaxSearchHits, prefix),
			Schema: obj(map[string]any{"pattern": str(""), "path": str("Directory or file to search. Defaults to the whole " + t.opts.DefaultRoot + " root."), "glob": str("File name pattern filter."), "ignore_case": map[string]any{"type": "boolean"}}, "pattern")},
		{Name: ToolDiff, Description: "Unified diff of the same relative path in two roots -- the fastest way to see what the migration did to one file. Give the relative path once, plus the two root names.",
			Schema: obj(map[string]any{"path": str("Relative path, e.g. src/main.c"), "left": str("Root name, default 'original'."), "right": str("Root name, default 'workspace'.")}, "path")},
	}
	if len(t.opts.AllowedCommands) > 0 {
		specs = append(specs, models.ToolSpec{Name: ToolRun,
			Description: fmt.Sprintf("Run one inspection command. No shell: pass argv as a list. Permitted programs for this task: %s. Timeout %gs.", strings.Join(t.opts.AllowedCommands, ", "), t.opts.RunTimeout.Seconds()),
			Schema: obj(map[string]any{"argv": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"cwd": str("Working directory, default the " + t.opts.DefaultRoot + " root.")}, "argv")})
	}
	return specs
}

// Handles reports whether name is one of the tools [Toolbox.Specs] offers.
func (t *Toolbox) Handles(name string) bool {
	for _, s := range t.Specs() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// --- dispatch -------------------------------------------------------------

// Dispatch runs one tool call and returns its text; it never fails and
// never panics. A mistake (a missing file, a bad regular expression, an
// argument the tool does not take) comes back as "ERROR: …" for the model
// to correct. Arguments under the names of Claude Code's Read tool
// (file_path, offset, limit) are translated for fetch_source first; any
// other unknown argument name is refused with the valid names, and nothing
// runs.
func (t *Toolbox) Dispatch(ctx context.Context, name string, args map[string]any) (out string) {
	t.calls++
	defer func() {
		if p := recover(); p != nil {
			out = fmt.Sprintf("ERROR: internal: %v", p)
		}
	}()
	var spec *models.ToolSpec
	specs := t.Specs()
	for i := range specs {
		if specs[i].Name == name {
			spec = &specs[i]
		}
	}
	if spec == nil {
		return fmt.Sprintf("ERROR: no such tool %q", name)
	}
	if args == nil {
		args = map[string]any{}
	}
	args = t.translateGatewayArgs(name, args)
	valid := spec.Properties()
	sort.Strings(valid)
	var unknown []string
	for k := range args {
		if !slices.Contains(valid, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Sprintf("ERROR: %s does not take %s. Its arguments are: %s. Nothing ran; re-send the call using those names.",
			name, strings.Join(unknown, ", "), strings.Join(valid, ", "))
	}
	var err error
	switch name {
	case ToolListDir:
		var p string
		var depth int
		if p, err = stringArg(args, "path", "."); err == nil {
			if depth, _, err = intArg(args, "depth"); err == nil {
				out, err = t.listDir(p, depth)
			}
		}
	case ToolFetchSource:
		var p string
		var start, end int
		if p, err = stringArg(args, "path", ""); err == nil {
			if start, _, err = intArg(args, "start_line"); err == nil {
				if end, _, err = intArg(args, "end_line"); err == nil {
					out, err = t.fetchSource(p, start, end)
				}
			}
		}
	case ToolSearch:
		var pat, p, glob string
		if pat, err = stringArg(args, "pattern", ""); err == nil {
			if p, err = stringArg(args, "path", t.opts.DefaultRoot+":"); err == nil {
				if glob, err = stringArg(args, "glob", ""); err == nil {
					ic, _ := args["ignore_case"].(bool)
					out, err = t.search(pat, p, glob, ic)
				}
			}
		}
	case ToolDiff:
		var p, l, r string
		if p, err = stringArg(args, "path", ""); err == nil {
			if l, err = stringArg(args, "left", "original"); err == nil {
				if r, err = stringArg(args, "right", "workspace"); err == nil {
					out, err = t.diff(p, l, r)
				}
			}
		}
	case ToolRun:
		out, err = t.run(ctx, args["argv"], args["cwd"])
	}
	if err != nil {
		return "ERROR: " + err.Error()
	}
	return out
}

func (t *Toolbox) translateGatewayArgs(name string, args map[string]any) map[string]any {
	if name != ToolFetchSource {
		return args
	}
	_, fp := args["file_path"]
	_, off := args["offset"]
	_, lim := args["limit"]
	if !fp && !off && !lim {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	if fp {
		v := out["file_path"]
		delete(out, "file_path")
		if _, has := out["path"]; !has {
			out["path"] = v
		}
	}
	offset, okO := out["offset"]
	limit, okL := out["limit"]
	delete(out, "offset")
	delete(out, "limit")
	_, hasStart := out["start_line"]
	_, hasEnd := out["end_line"]
	bad := false
	if okO && !hasStart {
		if n, ok := toInt(offset); ok {
			out["start_line"] = float64(n)
		} else {
			bad = true
		}
	}
	if okL && !hasEnd {
		base := 1
		if s, ok := toInt(out["start_line"]); ok && s > 0 {
			base = s
		}
		if n, ok := toInt(limit); ok {
			out["end_line"] = float64(base + n - 1)
		} else {
			bad = true
		}
	}
	if bad {
		// A slice that cannot be read is dropped, not guessed.
		if !hasStart {
			delete(out, "start_line")
		}
		if !hasEnd {
			delete(out, "end_line")
		}
	}
	t.rewrite++
	return out
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	case int:
		return x, true
	case string:
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(x), "%d", &n); err == nil {
			return n, true
		}
	}
	return 0, false
}

func stringArg(args map[string]any, key, def string) (string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", errf("%s must be a string, not %s", key, jsonType(v))
	}
	if s == "" {
		return def, nil
	}
	return s, nil
}

func intArg(args map[string]any, key string) (int, bool, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	n, ok := toInt(v)
	if !ok {
		return 0, false, errf("%s must be a whole number, not %v", key, v)
	}
	return n, true, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// --- the tools ------------------------------------------------------------

func isNoise(name string) bool { return slices.Contains(NoiseDirs, name) }

func (t *Toolbox) listDir(p string, depth int) (string, error) {
	r, rel, err := t.resolve(p, true)
	if err != nil {
		return "", err
	}
	info, err := r.r.Stat(rel)
	if err != nil {
		return "", t.pathError(p, r, err)
	}
	if !info.IsDir() {
		return fmt.Sprintf("%s  (%d B, mode %#o)", display(r, rel), info.Size(), info.Mode().Perm()), nil
	}
	depth = max(1, min(4, depth))
	lines := []string{strings.TrimSuffix(display(r, rel), "/") + "/"}
	truncated := false
	var walk func(dir string, level int)
	walk = func(dir string, level int) {
		entries, err := fs.ReadDir(r.r.FS(), dir)
		if err != nil {
			return
		}
		sort.SliceStable(entries, func(i, j int) bool {
			di, dj := entries[i].IsDir(), entries[j].IsDir()
			if di != dj {
				return di
			}
			return entries[i].Name() < entries[j].Name()
		})
		for _, e := range entries {
			if truncated {
				return
			}
			if len(lines) > MaxDirEntries {
				truncated = true
				return
			}
			indent := strings.Repeat("  ", level)
			child := path.Join(dir, e.Name())
			switch {
			case e.IsDir():
				mark := "/"
				if isNoise(e.Name()) {
					mark += "  [skipped]"
				}
				lines = append(lines, indent+e.Name()+mark)
				if !isNoise(e.Name()) && level+1 < depth {
					walk(child, level+1)
				}
			default:
				size := int64(-1)
				if fi, err := e.Info(); err == nil {
					size = fi.Size()
				}
				link := ""
				if e.Type()&fs.ModeSymlink != 0 {
					if target, err := r.r.Readlink(child); err == nil {
						link = " -> " + target
					}
				}
				lines = append(lines, fmt.Sprintf("%s%s  (%d B)%s", indent, e.Name(), size, link))
			}
		}
	}
	walk(rel, 0)
	if truncated {
		lines = append(lines, fmt.Sprintf("... truncated at %d entries; list a subdirectory or use search to narrow this down", MaxDirEntries))
	}
	return strings.Join(lines, "\n"), nil
}

// splitLines splits text into lines the way a reader counts them: on
// "\n", with a trailing "\r" dropped and no empty last line after a final
// newline.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// isBinary tells a binary file from text by its first probe bytes: one
// with no NUL there is text; one with a NUL is binary unless what is left
// without its NULs reads as text (valid UTF-8 with at most one byte in
// twenty a control character other than tab, line and page breaks and
// escape). So a NUL (or a thousand) in a comment of a kept source does
// not make it unreadable to the judge's tools (the break attempt of
// 2026-12-05: a C source kept with a NUL in its first comment was
// "binary" to fetch_source, search and diff, so no judge could quote a
// line of it, and a fail citing it could not ground); an executable,
// an archive or an image still is binary. The tools show each NUL as
// U+2400 (␀, [nulShown]), which a quote may carry.
func isBinary(b []byte, probe int) bool {
	head := b[:min(len(b), probe)]
	if bytes.IndexByte(head, 0) < 0 {
		return false
	}
	rest := bytes.ReplaceAll(head, []byte{0}, nil)
	if len(rest) == 0 {
		return true
	}
	odd := 0
	for i := 0; i < len(rest); {
		r, size := utf8.DecodeRune(rest[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A rune cut at the probe's end is not a binary's sign.
			if len(rest)-i < utf8.UTFMax && !utf8.FullRune(rest[i:]) {
				i = len(rest)
				continue
			}
			odd++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r' && r != 0x1b, r == 0x7f:
			odd++
		}
		i += size
	}
	return odd*20 > len(rest)
}

// nulShown is how the judge's tools show a NUL byte of a text file
// (U+2400 SYMBOL FOR NULL); grounding reads a NUL as it ([loose]), so a
// quote copied from a tool's output grounds.
const nulShown = "\u2400"

// asText is raw as the tools show it: NULs as [nulShown], invalid UTF-8
// as U+FFFD.
func asText(raw string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(raw, "\x00", nulShown), "\uFFFD")
}

func (t *Toolbox) binaryLine(r *root, rel string, raw []byte) string {
	kind := ""
	for _, m := range []struct{ magic, label string }{
		{"\x7fELF", "ELF"}, {"!<arch>\n", "ar archive"}, {"\x1f\x8b", "gzip"},
		{"PK\x03\x04", "zip"}, {"\x89PNG", "PNG"}, {"\x00asm", "wasm"},
	} {
		if bytes.HasPrefix(raw, []byte(m.magic)) {
			kind = ", first bytes say " + m.label
			break
		}
	}
	head := fmt.Sprintf("%s is binary (%d B%s).", display(r, rel), len(raw), kind)
	if len(t.opts.AllowedCommands) > 0 {
		return head + " Use run with a suitable inspection tool if this matters."
	}
	return head + " No tool in this stage's toolbox decodes it -- there is no run here, and search matches text only. That it exists with this size and this type is the whole of what can be read from it; a conclusion about what it contains has to come from the text that produces it."
}

// readRegular reads at most MaxFileBytes of rel, which must be a regular
// file: it is opened without blocking and checked after opening, so a FIFO
// or a device in a submission cannot hang the stage. truncated says the
// file is longer than what was read.
func readRegular(r *root, rel string) (raw []byte, truncated bool, err error) {
	f, err := openRegular(r, rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	raw, err = io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(raw) > MaxFileBytes {
		return raw[:MaxFileBytes], true, nil
	}
	return raw, false, nil
}

var errNotRegular = errors.New("not a regular file")

// openRegular opens rel of r for reading, which must be a regular file:
// it is opened without blocking and checked after opening, so a FIFO or
// a device in a submission cannot hang the stage.
func openRegular(r *root, rel string) (*os.File, error) {
	f, err := r.r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: rel, Err: errNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// MaxScanBytes bounds how far [lineWindow] reads into one file for a line
// past the [MaxFileBytes] read at once: the bound on a whole tree srb
// collects (collect.DefaultBounds), so any file of a graded tree is in
// reach.
const MaxScanBytes = 8 << 30

// lineWindow streams the regular file rel of r and returns its lines lo to
// hi (1-based, inclusive; split as [splitLines] splits, each made valid
// UTF-8), at most limit bytes of them in all, and whether the file has
// line lo at all. It reads at most [MaxScanBytes], so a line past
// MaxFileBytes can still be shown and cited: without it, a file could keep
// what it holds past that bound out of every tool's sight and every
// citation's reach.
func lineWindow(r *root, rel string, lo, hi, limit int) (lines []string, found bool, err error) {
	kept := 0
	keep := func(n int) int {
		if n < lo || n > hi {
			return 0
		}
		return limit - kept
	}
	err = scanLines(r, rel, keep, func(n int, line string) bool {
		if n >= lo {
			found = true
			kept += len(line)
			lines = append(lines, line)
		}
		return n < hi && kept < limit
	})
	return lines, found, err
}

// scanLines streams the regular file rel of r (at most [MaxScanBytes])
// and calls fn with each line's 1-based number and text (split as
// [splitLines] splits, made valid UTF-8), keeping at most keep(n) bytes
// of line n, until fn returns false or the file ends.
func scanLines(r *root, rel string, keep func(n int) int, fn func(n int, line string) bool) error {
	f, err := openRegular(r, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, MaxScanBytes), 64<<10)
	n, seen := 1, false
	var cur []byte
	for {
		chunk, rerr := br.ReadSlice('\n')
		if k := keep(n); len(cur) < k {
			cur = append(cur, chunk[:min(len(chunk), k-len(cur))]...)
		}
		seen = seen || len(chunk) > 0
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if rerr == nil || seen {
			line := strings.TrimSuffix(strings.TrimSuffix(string(cur), "\n"), "\r")
			if !fn(n, asText(line)) {
				return nil
			}
			n, seen, cur = n+1, false, cur[:0]
		}
		if rerr != nil {
			if rerr == io.EOF {
				return nil
			}
			return rerr
		}
	}
}

func (t *Toolbox) readFile(p string) (*root, string, []byte, bool, error) {
	r, rel, err := t.resolve(p, true)
	if err != nil {
		return nil, "", nil, false, err
	}
	info, err := r.r.Stat(rel)
	if err != nil {
		return nil, "", nil, false, t.pathError(p, r, err)
	}
	if info.IsDir() {
		return nil, "", nil, false, errf("%q is a directory; use list_dir", p)
	}
	raw, truncated, err := readRegular(r, rel)
	if err != nil {
		return nil, "", nil, false, t.pathError(p, r, err)
	}
	return r, rel, raw, truncated, nil
}

func (t *Toolbox) fetchSource(p string, start, end int) (string, error) {
	r, rel, raw, truncated, err := t.readFile(p)
	if err != nil {
		return "", err
	}
	if isBinary(raw, binaryProbe) {
		return t.binaryLine(r, rel, raw), nil
	}
	lines := splitLines(asText(string(raw)))
	lo := max(1, start)
	if truncated && (lo >= len(lines) || end >= len(lines)) {
		return t.fetchPastBound(r, rel, p, lo, end)
	}
	hi := len(lines)
	if end > 0 {
		hi = min(hi, end)
	}
	if lo > len(lines) {
		return "", errf("%q has %d lines; start_line %d is past the end", p, len(lines), lo)
	}
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, lines[i-1])
	}
	body, clipped := capBytes(strings.TrimSuffix(b.String(), "\n"), MaxReadBytes)
	t.reads[display(r, rel)] = true
	header := fmt.Sprintf("%s  lines %d-%d of %d", display(r, rel), lo, hi, len(lines))
	if clipped {
		header += fmt.Sprintf("  [TRUNCATED at %d B -- ask for a narrower line range to see the rest]", MaxReadBytes)
	}
	if truncated {
		header += fmt.Sprintf("  [the file is longer than the %d B any tool reads at once; lines past that are not counted here: fetch them by start_line]", MaxFileBytes)
	}
	return header + "\n" + body, nil
}

// fetchPastBound is fetch_source for lines at or past the end of what is
// read of a file at once ([MaxFileBytes]): they are streamed
// ([lineWindow]), lo to end (or as many as fit when end is 0).
func (t *Toolbox) fetchPastBound(r *root, rel, p string, lo, end int) (string, error) {
	hi := end
	if hi <= 0 || hi < lo {
		hi = lo + 1000
	}
	got, found, err := lineWindow(r, rel, lo, hi, MaxReadBytes)
	if err != nil {
		return "", t.pathError(p, r, err)
	}
	if !found {
		return "", errf("%q has fewer than %d lines; start_line %d is past the end", p, lo, lo)
	}
	var b strings.Builder
	for i, l := range got {
		fmt.Fprintf(&b, "%6d\t%s\n", lo+i, l)
	}
	body, clipped := capBytes(strings.TrimSuffix(b.String(), "\n"), MaxReadBytes)
	t.reads[display(r, rel)] = true
	header := fmt.Sprintf("%s  lines %d-%d  [past the %d B read at once: streamed]", display(r, rel), lo, lo+len(got)-1, MaxFileBytes)
	if clipped {
		header += fmt.Sprintf("  [TRUNCATED at %d B -- ask for a narrower line range to see the rest]", MaxReadBytes)
	}
	return header + "\n" + body, nil
}

// capBytes cuts s to at most limit bytes on a character boundary.
func capBytes(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	return strings.ToValidUTF8(s[:limit], ""), true
}

func (t *Toolbox) search(pattern, p, glob string, ignoreCase bool) (string, error) {
	if pattern == "" {
		return "", errf("pattern is required")
	}
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + expr
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return "", errf("bad regular expression %q: %v", pattern, err)
	}
	r, rel, err := t.resolve(p, true)
	if err != nil {
		return "", err
	}
	var hits []string
	scanned := 0
	match := func(file string, n int, line string) bool {
		if rx.MatchString(line) {
			hits = append(hits, fmt.Sprintf("%s:%d: %s", display(r, file), n, truncRunes(strings.TrimSpace(line), MaxSearchLine)))
		}
		return len(hits) < MaxSearchHits
	}
	visit := func(file string) {
		scanned++
		raw, truncated, err := readRegular(r, file)
		if err != nil || isBinary(raw, searchProbe) {
			return
		}
		if truncated {
			// Past the read at once the file is streamed, as fetch_source
			// and a citation's grounding read it: a file must not keep
			// what it holds past MaxFileBytes out of search's sight.
			_ = scanLines(r, file, func(int) int { return MaxFileBytes }, func(n int, line string) bool { return match(file, n, line) })
			return
		}
		for n, line := range splitLines(asText(string(raw))) {
			if !match(file, n+1, line) {
				return
			}
		}
	}
	info, err := r.r.Lstat(rel)
	if err == nil && !info.IsDir() {
		visit(rel)
	} else {
		_ = fs.WalkDir(r.r.FS(), rel, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if len(hits) >= MaxSearchHits {
				return fs.SkipAll
			}
			if d.IsDir() {
				if f != rel && isNoise(d.Name()) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if glob != "" {
				if ok, _ := path.Match(glob, d.Name()); !ok {
					return nil
				}
			}
			visit(f)
			return nil
		})
	}
	if len(hits) == 0 {
		msg := fmt.Sprintf("no match for %q under %s", pattern, display(r, rel))
		if glob != "" {
			msg += " (glob " + glob + ")"
		}
		return fmt.Sprintf("%s; %d files scanned", msg, scanned), nil
	}
	head := fmt.Sprintf("%d hit(s) for %q in %d files scanned", len(hits), pattern, scanned)
	if len(hits) >= MaxSearchHits {
		head += fmt.Sprintf(" [capped at %d; narrow the pattern or path]", MaxSearchHits)
	}
	return head + "\n" + strings.Join(hits, "\n"), nil
}

func truncRunes(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n])
}

// textOf reads rel in r as text. present is false when nothing is at
// rel; text is nil when something is there but it is not a readable
// regular text file of at most MaxFileBytes.
func textOf(r *root, rel string) (text []byte, present bool) {
	info, err := r.r.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil || info.IsDir() {
		return nil, true
	}
	raw, truncated, err := readRegular(r, rel)
	if err != nil || truncated || isBinary(raw, binaryProbe) {
		return nil, true
	}
	if raw == nil {
		raw = []byte{}
	}
	return raw, true
}

func (t *Toolbox) diff(p, left, right string) (string, error) {
	lr, rr := t.root(left), t.root(right)
	for _, x := range []struct {
		name string
		r    *root
	}{{left, lr}, {right, rr}} {
		if x.r == nil {
			return "", errf("unknown root %q; roots are %s", x.name, t.rootNames())
		}
	}
	rel := strings.TrimLeft(strings.TrimSpace(p), "/")
	if _, rest, ok := strings.Cut(rel, ":"); ok {
		rel = strings.TrimLeft(rest, "/")
	}
	rel = path.Clean("/" + rel)[1:]
	if rel == "" {
		return "", errf("path must name a file, not a root")
	}
	ltext, lthere := textOf(lr, rel)
	rtext, rthere := textOf(rr, rel)
	switch {
	case !lthere && !rthere:
		return "", errf("%q exists in neither %s nor %s", rel, left, right)
	case (lthere && ltext == nil) || (rthere && rtext == nil):
		var where []string
		for _, x := range []struct {
			name  string
			there bool
			text  []byte
		}{{left, lthere, ltext}, {right, rthere, rtext}} {
			if x.there && x.text == nil {
				where = append(where, x.name)
			}
		}
		return fmt.Sprintf("%s is not a text file in %s (a directory, a binary, a file over %d B, or not a regular file); diff compares text only. Use list_dir or fetch_source on it.", rel, strings.Join(where, " and "), MaxFileBytes), nil
	case ltext == nil:
		return fmt.Sprintf("%s does not exist in %s; it is new in %s (%d lines). Use fetch_source to see it.", rel, left, right, len(splitLines(string(rtext)))), nil
	case rtext == nil:
		return fmt.Sprintf("%s exists in %s (%d lines) but is ABSENT from %s -- it was deleted or moved.", rel, left, len(splitLines(string(ltext))), right), nil
	}
	t.reads[display(rr, rel)] = true
	if bytes.Equal(ltext, rtext) {
		return fmt.Sprintf("%s is byte-identical in %s and %s.", rel, left, right), nil
	}
	out := splitLines(asText(string(diff.Diff(left+"/"+rel, ltext, right+"/"+rel, rtext))))
	if len(out) > MaxDiffLines {
		n := len(out)
		out = append(out[:MaxDiffLines], fmt.Sprintf("... diff truncated at %d lines of %d; fetch_source the region you care about", MaxDiffLines, n))
	}
	return strings.Join(out, "\n"), nil
}

func (t *Toolbox) run(ctx context.Context, argvArg, cwdArg any) (string, error) {
	if len(t.opts.AllowedCommands) == 0 {
		return "", errf("this stage does not permit running commands")
	}
	if _, isStr := argvArg.(string); isStr {
		return "", errf("argv must be a list of strings -- there is no shell, so a command line in one string will not work")
	}
	list, ok := argvArg.([]any)
	if !ok || len(list) == 0 {
		return "", errf("argv must be a non-empty list of strings")
	}
	argv := make([]string, len(list))
	for i, a := range list {
		s, ok := a.(string)
		if !ok {
			return "", errf("argv[%d] must be a string, not %s", i, jsonType(a))
		}
		argv[i] = s
	}
	prog := path.Base(argv[0])
	if !slices.Contains(t.opts.AllowedCommands, prog) && !slices.Contains(t.opts.AllowedCommands, argv[0]) {
		return "", errf("%q is not permitted for this task. Permitted: %s", prog, strings.Join(t.opts.AllowedCommands, ", "))
	}
	var dir string
	if cwd, ok := cwdArg.(string); ok && strings.TrimSpace(cwd) != "" {
		r, rel, err := t.resolve(cwd, true)
		if err != nil {
			return "", err
		}
		if info, err := r.r.Stat(rel); err != nil || !info.IsDir() {
			return "", errf("cwd %q is not a directory", cwd)
		}
		dir = filepath.Join(r.dir, filepath.FromSlash(rel))
	} else if cwdArg != nil {
		if _, ok := cwdArg.(string); !ok {
			return "", errf("cwd must be a string, not %s", jsonType(cwdArg))
		}
	}
	if dir == "" {
		r := t.root(t.opts.DefaultRoot)
		if r == nil {
			r = t.roots[0]
		}
		dir = r.dir
	}
	pathEnv := t.opts.Getenv("PATH")
	if pathEnv == "" {
		pathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	home := t.opts.Getenv("HOME")
	if home == "" {
		home = "/tmp"
	}
	env := []string{"PATH=" + pathEnv, "HOME=" + home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TZ=UTC", "PYTHONDONTWRITEBYTECODE=1"}
	res, err := t.opts.Runner.Run(ctx, Command{Argv: argv, Dir: dir, Env: env, Timeout: t.opts.RunTimeout})
	if err != nil {
		return "", errf("cannot run %q: %v", argv[0], err)
	}
	if res.TimedOut {
		return fmt.Sprintf("$ %s\nTIMEOUT after %gs -- no output is trustworthy", strings.Join(argv, " "), t.opts.RunTimeout.Seconds()), nil
	}
	text := string(res.Stdout)
	if len(res.Stderr) > 0 {
		text += "\n[stderr]\n" + string(res.Stderr)
	}
	body, clipped := capBytes(strings.ToValidUTF8(text, "\uFFFD"), MaxRunOutput)
	note := ""
	if clipped {
		note = "  [output truncated]"
	}
	return fmt.Sprintf("$ %s  (cwd %s)\nexit %d%s\n%s", strings.Join(argv, " "), dir, res.ExitCode, note, body), nil
}

// --- grounding ------------------------------------------------------------

// Ground re-checks one citation (HARNESS.md §4.1.6). path must resolve
// inside a root and exist; a directory, or a binary file (a NUL in its
// first 8000 bytes), grounds only without a line. line 0 means none; a
// line must lie within the file, and a non-empty quote must appear within
// three lines of it (lines line-3 … line+3), compared with runs of white
// space collapsed and case ignored. Without a line the quote may be
// anywhere in the file. It returns whether the citation holds and a note
// saying why not ("verified" when it does).
func (t *Toolbox) Ground(p string, line int, quote string) (bool, string) {
	r, rel, err := t.resolve(p, true)
	if err != nil {
		return false, err.Error()
	}
	info, err := r.r.Stat(rel)
	if err != nil {
		return false, t.pathError(p, r, err).Error()
	}
	if info.IsDir() {
		if line != 0 {
			return false, "cited a directory with a line number"
		}
		return true, "directory exists"
	}
	raw, _, err := readRegular(r, rel)
	if err != nil {
		return false, "unreadable: " + unwrapPath(err).Error()
	}
	if isBinary(raw, binaryProbe) {
		return line == 0, "binary file"
	}
	text := asText(string(raw))
	lines := splitLines(text)
	if line != 0 {
		if line < 1 || line > len(lines) {
			return false, fmt.Sprintf("cited line %d but %s has %d lines", line, display(r, rel), len(lines))
		}
		if quote != "" {
			window := strings.Join(lines[max(0, line-4):min(len(lines), line+3)], "\n")
			if !strings.Contains(loose(window), loose(quote)) {
				return false, fmt.Sprintf("quoted text not found within 3 lines of line %d", line)
			}
		}
		return true, "verified"
	}
	if quote != "" && !strings.Contains(loose(text), loose(quote)) {
		return false, "quoted text not found in file"
	}
	return true, "verified"
}

// GroundLine re-checks a citation that must point at a line of one root's
// tree, the stricter rule a stage-1 "fail" is held to (docs/LADDER.md
// "How the reviews are decided"): p must resolve inside the root called
// in (a path into another root, however real, does not count), name an
// existing regular file there (not a folder, a device or a FIFO; a
// symbolic link counts only when it stays inside the root; a binary file
// is read as text), cite a line
// within the file (line >= 1), and carry a non-empty quote found within
// three lines of it, compared as [Toolbox.Ground] compares, and found
// there as whole words (an end of the quote that is a letter, digit or
// '_' may not continue a word of the file). Whether the
// quote says anything is the caller's rule. It returns whether the
// citation holds and a note saying why not ("verified" when it does).
func (t *Toolbox) GroundLine(in, p string, line int, quote string) (bool, string) {
	r, rel, err := t.resolve(p, true)
	if err != nil {
		return false, err.Error()
	}
	if r.name != in {
		return false, fmt.Sprintf("cites %s, a file of the %s tree; only a line of the %s tree grounds this", display(r, rel), r.name, in)
	}
	info, err := r.r.Stat(rel)
	if err != nil {
		return false, t.pathError(p, r, err).Error()
	}
	if info.IsDir() {
		return false, fmt.Sprintf("cites the folder %s, not a line of a file", display(r, rel))
	}
	if line < 1 {
		return false, fmt.Sprintf("cites %s with no line number", display(r, rel))
	}
	if strings.TrimSpace(quote) == "" {
		return false, fmt.Sprintf("cites %s:%d with no quote", display(r, rel), line)
	}
	raw, truncated, err := readRegular(r, rel)
	if err != nil {
		return false, "unreadable: " + unwrapPath(err).Error()
	}
	// A NUL does not stop a file from grounding: a submission could
	// otherwise put one in a comment of a kept source to make every line
	// of it uncitable.
	lines := splitLines(asText(string(raw)))
	var window string
	if truncated && line+3 >= len(lines) {
		// Past what is read at once (the last line read may be cut):
		// the window is streamed, so no line is out of a citation's
		// reach however far into the file it is.
		got, found, err := lineWindow(r, rel, max(1, line-3), line+3, MaxFileBytes)
		if err != nil {
			return false, "unreadable: " + unwrapPath(err).Error()
		}
		if !found || line-max(1, line-3) >= len(got) {
			return false, fmt.Sprintf("cited line %d but %s has fewer lines", line, display(r, rel))
		}
		window = strings.Join(got, "\n")
	} else {
		if line > len(lines) {
			return false, fmt.Sprintf("cited line %d but %s has %d lines", line, display(r, rel), len(lines))
		}
		window = strings.Join(lines[max(0, line-4):min(len(lines), line+3)], "\n")
	}
	w, q := loose(window), loose(quote)
	if !strings.Contains(w, q) {
		return false, fmt.Sprintf("quoted text not found within 3 lines of line %d", line)
	}
	if !containsWords(w, q) {
		return false, fmt.Sprintf("the quote is found within 3 lines of line %d only as part of a longer word: a quote grounds only as whole words", line)
	}
	return true, "verified"
}

// containsWords reports whether needle occurs in hay with neither of its
// ends inside a word: where needle begins with a letter, digit or '_',
// the character before the occurrence is none of those, and likewise at
// its end. Three letters cut out of the middle of words ("pyright" of
// "Copyright") are found on almost any line, so they show nothing about it.
func containsWords(hay, needle string) bool {
	if needle == "" {
		return true
	}
	first, _ := utf8.DecodeRuneInString(needle)
	last, _ := utf8.DecodeLastRuneInString(needle)
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		at, end := from+i, from+i+len(needle)
		before, _ := utf8.DecodeLastRuneInString(hay[:at])
		after, _ := utf8.DecodeRuneInString(hay[end:])
		if !(wordRune(first) && at > 0 && wordRune(before)) && !(wordRune(last) && end < len(hay) && wordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(hay[at:])
		from = at + size
	}
	return false
}

// wordRune reports whether r can be part of a word or identifier.
func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

var space = regexp.MustCompile(`\s+`)

// loose collapses white space and case, for comparing a quote with a file.
func loose(s string) string {
	s = strings.ReplaceAll(s, "\x00", nulShown)
	return strings.ToLower(strings.TrimSpace(space.ReplaceAllString(s, " ")))
}

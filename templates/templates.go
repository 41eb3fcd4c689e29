// Package templates holds what `srb new` scaffolds (task/, embedded in the
// binary) and renders it for one task id and debt class.
//
// One tree serves every class: files ending in .tmpl are Go text/template
// files with the delimiters <% and %> (so a prompt's {{placeholders}} pass
// through untouched), rendered with the class's [Defaults] and written
// without the suffix; every other file is copied as it is.
package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

//go:embed all:task
var files embed.FS

// FS returns the template tree, rooted at the task folder it scaffolds.
func FS() fs.FS {
	sub, err := fs.Sub(files, "task")
	if err != nil {
		panic(err) // the embedded tree always has task/
	}
	return sub
}

// Marker is the string every line an author must fill in carries; srb
// validate reports each occurrence (rule scaffold-todo).
const Marker = "TODO(srb new)"

// ClassPrefixes maps each debt class to its id prefix (schema/task.cue
// #ClassPrefix).
var ClassPrefixes = map[string]string{
	"language":  "lang",
	"framework": "fw",
	"platform":  "pf",
	"build":     "build",
}

// Classes returns the debt classes, sorted.
func Classes() []string {
	out := make([]string, 0, len(ClassPrefixes))
	for c := range ClassPrefixes {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

var reID = regexp.MustCompile(`^[a-z]+[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$`)

// CheckID reports whether id is a valid task id of class: <class
// prefix><2 digits>-<slug> with a lower-case, hyphenated slug (schema/task.cue
// #ID). The error says what is wrong and what would be right.
func CheckID(id, class string) error {
	prefix, ok := ClassPrefixes[class]
	if !ok {
		return fmt.Errorf("class %q: the classes are %s", class, strings.Join(Classes(), ", "))
	}
	if !reID.MatchString(id) {
		return fmt.Errorf("id %q must be <class prefix><2 digits>-<slug>, lower case, words joined by '-' (e.g. %s01-example-c-to-go)", id, prefix)
	}
	if got := strings.TrimRight(id[:strings.IndexByte(id, '-')], "0123456789"); got != prefix {
		return fmt.Errorf("id %q: class %s takes the prefix %q, not %q (e.g. %s%s)", id, class, prefix, got, prefix, strings.TrimPrefix(id, got))
	}
	return nil
}

// Defaults are what differs between classes in a scaffold: the example
// stacks, State A's source kind, the build commands and the capabilities.
// The string fields holding CUE are CUE literals, written as they are.
type Defaults struct {
	ID, Class, Prefix string
	Debt              string // what the class retires, one phrase
	TitleExample      string
	InstructionTitle  string
	OldStack          string
	NewStack          string
	Source            string // CUE: state_a.source
	Toolchains        string // CUE: state_b.toolchains
	Build             string // CUE: state_b.build
	Exclude           string // CUE: artifacts.exclude
	Original          string // CUE: the default configuration's original
	Outputs           string // CUE: the default configuration's outputs
	Watch             string // CUE: the default configuration's watch
	CorpusAbout       string
	CorpusArgv        string // CUE: the corpus module's argv
	OldTools          string // CUE: the provenance rule's old tools
	NewTools          string // CUE: the provenance rule's new tools
	OldCaps, NewCaps  string // CUE: images.stacks
	AgentImage        string // CUE: images.agent
	BehaviouralImage  string // CUE: images.behavioural
	VerificationImage string // CUE: images.verification
	StacksExtra       string // CUE: more lines of images.stacks ("\n\t\tshared: []"), or ""
	GateRetired       string
	GateReal          string
	SurfaceText       string
	// ArtifactsPath is artifacts.path: where the agent works, State A
	// committed there as a git repository (the agent image has no
	// /opt/original: that is the grader's).
	ArtifactsPath string
}

// DefaultsFor returns the scaffold's values for id of class.
func DefaultsFor(id, class string) Defaults {
	d := Defaults{ID: id, Class: class, Prefix: ClassPrefixes[class],
		Exclude:       `["build", ".git"]`,
		ArtifactsPath: "/workspace/repo",
		CorpusAbout:   "the output for every input of the corpus on standard input",
		SurfaceText:   "the program's observable behaviour: its output, exit status and errors for every input and option",
	}
	switch class {
	case "language":
		d.Debt = "a program or library rewritten in another language"
		d.TitleExample = "cmark: C to Rust"
		d.InstructionTitle = "Migrate the project from C to Rust"
		d.OldStack, d.NewStack = "C99, built by a Makefile with cc", "Rust (Debian's rustc and cargo), no external crates"
		d.Source = `{kind: "debian", package: "example", version: "1.0-1"}`
		d.Toolchains = `{rustc: "1.63.0", cargo: "0.66.0"}`
		d.Build = `[["cargo", "build", "--release", "--offline"]]`
		d.Exclude = `["target", "build", ".git"]`
		d.Original = `[["make"]]`
		d.Outputs = `["example"]`
		d.Watch = `["cc", "gcc", "make", "cargo", "rustc"]`
		d.CorpusArgv = `["${BUILD}/example"]`
		d.OldTools, d.NewTools = `["gcc", "make"]`, `["rustc"]`
		d.OldCaps, d.NewCaps = `["gcc", "make"]`, `["cargo", "rustc"]`
		d.VerificationImage = `{packages: ["gcc=4:12.2.0-3", "make=4.3-4.1", "cargo=0.66.0+ds1-1", "rustc=1.63.0+dfsg1-2"]}`
		// The agent image has both stacks and git (State A is a git
		// repository there).
		d.AgentImage = `{packages: ["gcc=4:12.2.0-3", "make=4.3-4.1", "cargo=0.66.0+ds1-1", "rustc=1.63.0+dfsg1-2", "git=1:2.39.5-0+deb12u3"]}`
		// Rust links through cc: the behavioural image keeps it, watched.
		d.BehaviouralImage = `{packages: ["gcc=4:12.2.0-3", "cargo=0.66.0+ds1-1", "rustc=1.63.0+dfsg1-2"], observe: ["cc", "gcc"]}`
		d.GateRetired = "Is every C source and the Makefile's C build gone from the submission?"
		d.GateReal = "Does the Rust code do the work itself, rather than calling kept C code or a prebuilt binary?"
	case "framework":
		d.Debt = "an application moved from one framework or library to another on the same language"
		d.TitleExample = "upload-server: gorilla/mux to net/http"
		d.InstructionTitle = "Move the project to the new framework"
		d.OldStack, d.NewStack = "Go 1.22 with the old framework", "Go 1.22 with the standard library's router"
		d.Source = `{kind: "gomod", module: "example.invalid/example", version: "v1.0.0"}`
		d.Toolchains = `{go: "1.22.5"}`
		d.Build = `[["go", "build", "-trimpath", "-o", "example", "."]]`
		d.Exclude = `["example", "vendor", ".git"]`
		d.Original = `[["go", "build", "-trimpath", "-o", "example", "."]]`
		d.Outputs = `["example"]`
		// cc and gcc are watched to see that no C is compiled (cgo); no
		// stack of the task uses them, so stacks.shared is empty rather
		// than the watched tools neither stack names.
		d.Watch = `["go", "cc", "gcc"]`
		d.StacksExtra = "\n\t\tshared: []"
		d.CorpusArgv = `["${BUILD}/example"]`
		d.OldTools, d.NewTools = `["cc", "gcc"]`, `["go"]`
		d.OldCaps, d.NewCaps = `[]`, `["go"]`
		d.AgentImage = `{packages: ["git=1:2.39.5-0+deb12u3"], go: ["1.22.5"]}`
		d.BehaviouralImage = `{go: ["1.22.5"]}`
		d.VerificationImage = `{packages: ["gcc=4:12.2.0-3"], go: ["1.22.5"]}`
		d.GateRetired = "Is the old framework gone from the submission's code and its module requirements?"
		d.GateReal = "Does the new framework serve every route itself, rather than a shim that forwards to the old one?"
	case "platform":
		// A runtime port that Debian bookworm (the base) carries both ends
		// of: Python 3 to Node.js. Every stack line is the author's to
		// replace (its TODO(srb new) note says so).
		d.Debt = "a program moved from one runtime or platform to another"
		d.TitleExample = "words: Python to Node.js"
		d.InstructionTitle = "Move the project to the new platform"
		d.OldStack, d.NewStack = "Python 3.11 (Debian)", "Node.js 18 (Debian)"
		d.Source = `{kind: "url", url: "https://example.invalid/example-1.0.tar.gz", sha256: "0000000000000000000000000000000000000000000000000000000000000000"}`
		d.Toolchains = `{node: "18.20.4"}`
		d.Build = `[["node", "--check", "example.js"]]`
		d.Exclude = `["node_modules", "__pycache__", ".git"]`
		d.Original = `[["python3", "-m", "compileall", "-q", "."]]`
		d.Outputs = `[]`
		d.Watch = `["python3", "node"]`
		d.CorpusArgv = `["node", "${BUILD}/example.js"]`
		d.OldTools, d.NewTools = `["python3"]`, `["node"]`
		d.OldCaps, d.NewCaps = `["python3"]`, `["node"]`
		d.VerificationImage = `{packages: ["python3=3.11.2-1+b1", "nodejs=18.20.4+dfsg-1~deb12u2"]}`
		// State A runs on python3 when stage 2 checks it (the identity run,
		// an untouched submission): the behavioural image keeps python3,
		// watched (srb build's identity run fails without it).
		d.BehaviouralImage = `{packages: ["python3=3.11.2-1+b1", "nodejs=18.20.4+dfsg-1~deb12u2"], observe: ["python3"]}`
		d.AgentImage = `{packages: ["python3=3.11.2-1+b1", "nodejs=18.20.4+dfsg-1~deb12u2", "git=1:2.39.5-0+deb12u3"]}`
		d.GateRetired = "Is every Python source gone, so that nothing in the submission needs Python?"
		d.GateReal = "Does the submission run on Node.js itself, rather than shelling out to a kept Python program?"
	case "build":
		d.Debt = "a build system replaced, the built artifacts kept"
		d.TitleExample = "libsodium: Autotools to CMake"
		d.InstructionTitle = "Move the project's build from Autotools to CMake"
		d.OldStack, d.NewStack = "C, built by GNU Autotools (configure, make)", "C, built by CMake 3.25 (Debian)"
		d.Source = `{kind: "debian", package: "example", version: "1.0-1"}`
		d.Toolchains = `{cmake: "3.25.1"}`
		d.Build = `[["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"], ["cmake", "--build", "build"]]`
		d.Original = `[["./configure"], ["make"]]`
		d.Outputs = `[]`
		d.Watch = `["cc", "gcc", "make", "cmake", "autoconf", "automake", "libtool"]`
		d.CorpusArgv = `["${BUILD}/build/example"]`
		d.OldTools, d.NewTools = `["autoconf", "automake", "libtool"]`, `["cmake"]`
		d.OldCaps, d.NewCaps = `["autoconf", "automake", "libtool"]`, `["cmake"]`
		d.VerificationImage = `{packages: ["gcc=4:12.2.0-3", "make=4.3-4.1", "autoconf=2.71-3", "automake=1:1.16.5-1.3", "libtool=2.4.7-7~deb12u1", "libtool-bin=2.4.7-7~deb12u1", "cmake=3.25.1-1"]}`
		d.BehaviouralImage = `{packages: ["gcc=4:12.2.0-3", "make=4.3-4.1", "cmake=3.25.1-1"]}`
		d.AgentImage = `{packages: ["gcc=4:12.2.0-3", "make=4.3-4.1", "autoconf=2.71-3", "automake=1:1.16.5-1.3", "libtool=2.4.7-7~deb12u1", "libtool-bin=2.4.7-7~deb12u1", "cmake=3.25.1-1", "git=1:2.39.5-0+deb12u3"]}`
		d.GateRetired = "Is the Autotools build (configure.ac, Makefile.am, generated configure and Makefile.in) gone from the submission?"
		d.GateReal = "Does CMake build the libraries and programs itself, rather than calling the kept configure or make?"
	}
	return d
}

// Scaffold writes the template tree for id of class into dir, which must
// not exist (nothing is ever overwritten), and returns the paths written,
// relative to dir and sorted. An invalid id or class is an error from
// [CheckID]; nothing is written then.
func Scaffold(dir, id, class string) ([]string, error) {
	if err := CheckID(id, class); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("%s already exists: srb new never overwrites a task", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	d := DefaultsFor(id, class)
	src := FS()
	type out struct {
		rel  string
		data []byte
		mode fs.FileMode
	}
	var outs []out
	err := fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		rel, mode := p, fs.FileMode(0o644)
		if path.Dir(p) != "." && strings.HasPrefix(p, "modules/") && strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if strings.HasSuffix(p, ".tmpl") {
			rel = strings.TrimSuffix(p, ".tmpl")
			t, err := template.New(p).Delims("<%", "%>").Option("missingkey=error").Parse(string(b))
			if err != nil {
				return fmt.Errorf("template %s: %w", p, err)
			}
			var buf bytes.Buffer
			if err := t.Execute(&buf, d); err != nil {
				return fmt.Errorf("template %s: %w", p, err)
			}
			b = buf.Bytes()
		}
		outs = append(outs, out{rel, b, mode})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Everything is rendered before anything is written: a template error
	// leaves no half-made task behind.
	var written []string
	for _, o := range outs {
		p := filepath.Join(dir, filepath.FromSlash(o.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(p, o.data, o.mode); err != nil {
			return written, err
		}
		written = append(written, o.rel)
	}
	sort.Strings(written)
	return written, nil
}

package kinds

import (
	"encoding/json"
	"fmt"
)

// The Go types of the module kinds of schema/task.cue (#ModuleKinds). A
// kind's params arrive as the task's CUE params exported to JSON, defaults
// applied; [Decode] reads them strictly (an unknown field is an error), so
// the CUE and Go declarations cannot drift apart silently.

// Normaliser rewrites a part of an observation that legitimately varies
// before it is recorded or compared. Builtin is one of "timestamps" (ISO
// 8601 and HTTP/RFC 1123 dates → <TIME>), "ports" (127.0.0.1:N and
// localhost:N → host:<PORT>), "temp-paths" (the module's work and build
// folders → <WORK>, <BUILD>); otherwise Pattern (a Go regexp) is replaced
// by Replace ($1 expands). Normalisers apply in order, to text only.
type Normaliser struct {
	Builtin string `json:"builtin,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Replace string `json:"replace,omitempty"`
}

// BuildParams are the parameters of kind "build": the configurations this
// module builds into the ledger (every declared one, sorted, when empty).
type BuildParams struct {
	Configurations []string `json:"configurations"`
}

// Case is one command case. Argv, Stdin and Env values expand ${BUILD}
// (the restored configuration), ${WORK} (the case's scratch folder, its
// working directory), ${DATA} (the task folder) and, for corpus cases,
// ${INPUT} (the input file).
type Case struct {
	ID    string   `json:"id"`
	Argv  []string `json:"argv"`
	Stdin string   `json:"stdin,omitempty"`
	// StdinFile is a file of the task folder fed as standard input.
	StdinFile string            `json:"stdin_file,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Files are input files written into the case's folder before it runs
	// (path relative to it → content).
	Files map[string]string `json:"files,omitempty"`
	// Produces are files the case is expected to leave in its folder;
	// their content digests are compared ("missing" when absent).
	Produces   []string `json:"produces,omitempty"`
	TimeoutSec int      `json:"timeout_sec,omitempty"`
}

// Corpus generates one case per file of Dir matching Glob: the file is
// standard input (Stdin) and ${INPUT} in Argv. With Expect (a glob whose
// '*' is the input's stem, e.g. "*.exp"), the expected standard output
// comes from that file instead of the recording.
//
// From says whose tree Dir is in: "task" (the task folder, the default)
// or "original" (State A's tree, $SRB_ORIGINAL), so a corpus State A
// ships is read where it is at run time and never copied into the task;
// State A's pin covers its content. With Split, each file is cut into
// many cases at delimiter lines instead of being one case.
type Corpus struct {
	From   string   `json:"from,omitempty"`
	Dir    string   `json:"dir"`
	Glob   string   `json:"glob"`
	Argv   []string `json:"argv"`
	Stdin  bool     `json:"stdin"`
	Expect string   `json:"expect,omitempty"`
	Split  *Split   `json:"split,omitempty"`
	// Stage (From "original" only) is a folder of State A's tree holding
	// Dir (Dir itself or a parent of it), copied whole and read-only into
	// the submission's sandbox once per module; ${INPUT} then points into
	// that copy, so an input reaches the files beside it. "" stages each
	// input file alone.
	Stage string `json:"stage,omitempty"`
	// TimeoutSec, above zero, is each corpus case's timeout in seconds;
	// 0 is [DefaultCaseTimeout], as for a case that declares none.
	TimeoutSec int `json:"timeout_sec,omitempty"`
}

// Split cuts a corpus file into cases at delimiter lines: Go regexps
// matched against each line without its line ending. A case opens after a
// line matching Begin and closes at the next line matching End; when
// Middle is set, the case's input stops at the first line matching it and
// the rest until End (an expected part) is not used. Replace rewrites each
// case's input in order (e.g. a visible tab marker to a tab). Cases are
// numbered from 1 in file order: the id is the file's stem, "/", and the
// number in four or more digits (spec/0001). A Begin with no End before
// the file ends is an error naming the file and line.
type Split struct {
	Begin   string    `json:"begin"`
	Middle  string    `json:"middle,omitempty"`
	End     string    `json:"end"`
	Replace []Rewrite `json:"replace,omitempty"`
}

// Rewrite replaces every match of Pattern (a Go regexp) with Replace ($1
// expands).
type Rewrite struct {
	Pattern string `json:"pattern"`
	Replace string `json:"replace"`
}

// CommandParams are the parameters of kind "command".
type CommandParams struct {
	Configuration string       `json:"configuration"`
	Compare       []string     `json:"compare"` // stdout, stderr, exit, files
	Normalise     []Normaliser `json:"normalise"`
	Cases         []Case       `json:"cases"`
	Corpus        *Corpus      `json:"corpus,omitempty"`
	// Parallel runs cases concurrently (one per CPU).
	Parallel bool `json:"parallel"`
}

// Ready says when a started server is ready: Target answers with Status
// (any status when 0) within TimeoutSec.
type Ready struct {
	Method     string `json:"method"`
	Target     string `json:"target"`
	Status     int    `json:"status"`
	TimeoutSec int    `json:"timeout_sec"`
}

// Server is the command that starts the server under test; ${PORT} in
// Argv and Env is a free loopback port.
type Server struct {
	Argv  []string          `json:"argv"`
	Env   map[string]string `json:"env,omitempty"`
	Ready Ready             `json:"ready"`
}

// Exchange is one HTTP request. Raw, when set, is sent verbatim (with
// ${PORT} expanded; "\r\n" as written); otherwise the request is built
// from Method, Target, Headers (in order), Body, plus Host and
// Connection: close.
type Exchange struct {
	ID      string      `json:"id"`
	Method  string      `json:"method"`
	Target  string      `json:"target"`
	Headers [][2]string `json:"headers,omitempty"`
	Body    string      `json:"body,omitempty"`
	Raw     string      `json:"raw,omitempty"`
}

// HTTPParams are the parameters of kind "http". Compare names what is
// compared: status, headers (names in order and values), body, length
// (bytes on the wire).
type HTTPParams struct {
	Configuration string   `json:"configuration"`
	Server        Server   `json:"server"`
	Compare       []string `json:"compare"`
	// Headers names the header fields the "headers" check compares (any
	// case); empty compares every field. Either way the fields are
	// compared as HTTP means them ([canonicalHeaders]): names
	// lower-cased, sorted by name, one name's fields in wire order.
	Headers   []string     `json:"headers,omitempty"`
	Normalise []Normaliser `json:"normalise"`
	Exchanges []Exchange   `json:"exchanges"`
}

// TreeParams are the parameters of kind "tree": Install runs in the
// restored configuration with ${PREFIX} a fresh folder, then every path
// under the prefix matching Include is observed (type, mode, link
// target, content digest). A file matching Opaque (same glob syntax) is
// observed without its digest: for artifacts whose bytes legitimately
// depend on the build system (a compiled library), while its presence,
// type and mode still count.
type TreeParams struct {
	Configuration string     `json:"configuration"`
	Install       [][]string `json:"install"`
	Include       []string   `json:"include"`
	Opaque        []string   `json:"opaque"`
}

// SymbolsParams are the parameters of kind "symbols": the dynamic symbol
// tables (defined, global or weak, with versions) of Libraries, paths in
// the restored configuration.
type SymbolsParams struct {
	Configuration string   `json:"configuration"`
	Libraries     []string `json:"libraries"`
	// Match keeps only symbols matching this regexp ("" keeps all).
	Match string `json:"match,omitempty"`
}

// DigestsParams are the parameters of kind "digests": Steps run in order
// in the module's folder (${BUILD}, ${WORK}, ${DATA} expanded), then the
// sha256 of every file in Files (relative to ${WORK} unless it starts
// with ${BUILD}) is compared.
type DigestsParams struct {
	Configuration string     `json:"configuration"`
	Steps         [][]string `json:"steps"`
	Files         []string   `json:"files"`
}

// Rule is one tool-provenance rule: did any of Tools (names as watched;
// "*" for any) run with an input file matching Inputs (a glob on the path
// relative to the built tree; "" for any invocation)? Expect is what the
// submission must show: "never" or "ran".
type Rule struct {
	ID     string   `json:"id"`
	Tools  []string `json:"tools"`
	Inputs string   `json:"inputs,omitempty"`
	Expect string   `json:"expect"`
}

// ProvenanceParams are the parameters of kind "provenance": the rules are
// judged on the tool log the build recorded for Configuration.
type ProvenanceParams struct {
	Configuration string `json:"configuration"`
	Rules         []Rule `json:"rules"`
}

// ProgramParams are the parameters of kind "program": a task's own module
// program (Command, run in Dir of the task folder with Env) that writes
// the module-result JSON itself. The runner runs it; the helper does not.
type ProgramParams struct {
	Dir     string            `json:"dir"`
	Command []string          `json:"command"`
	Env     map[string]string `json:"env"`
}

// Kinds returns every module kind with a zero value of its params type.
func Kinds() map[string]any {
	return map[string]any{
		"build":      &BuildParams{},
		"command":    &CommandParams{},
		"http":       &HTTPParams{},
		"tree":       &TreeParams{},
		"symbols":    &SymbolsParams{},
		"digests":    &DigestsParams{},
		"provenance": &ProvenanceParams{},
		"program":    &ProgramParams{},
	}
}

// ConfigurationsOf returns the build configurations a module of kind
// uses: the one it restores, or, for kind build, the ones it builds (nil
// meaning every declared one). params are decoded strictly.
func ConfigurationsOf(kind string, params json.RawMessage) ([]string, error) {
	dst, ok := Kinds()[kind]
	if !ok {
		return nil, fmt.Errorf("unknown module kind %q", kind)
	}
	if err := Decode(params, dst); err != nil {
		return nil, err
	}
	one := func(c string) []string {
		if c == "" {
			c = "default"
		}
		return []string{c}
	}
	switch p := dst.(type) {
	case *BuildParams:
		return p.Configurations, nil
	case *CommandParams:
		return one(p.Configuration), nil
	case *HTTPParams:
		return one(p.Configuration), nil
	case *TreeParams:
		return one(p.Configuration), nil
	case *SymbolsParams:
		return one(p.Configuration), nil
	case *DigestsParams:
		return one(p.Configuration), nil
	case *ProvenanceParams:
		return one(p.Configuration), nil
	}
	return nil, nil
}

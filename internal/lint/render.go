package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// rel makes file relative to base (when base is set and file lies under
// it) with forward slashes, so output reads the same on every OS.
func rel(base, file string) string {
	if base != "" && file != "" && filepath.IsAbs(file) {
		if r, err := filepath.Rel(base, file); err == nil && !strings.HasPrefix(r, "..") {
			file = r
		}
	}
	return filepath.ToSlash(file)
}

func (l Location) where(base string) string {
	f := rel(base, l.File)
	switch {
	case l.Line > 0 && l.Column > 0:
		return fmt.Sprintf("%s:%d:%d", f, l.Line, l.Column)
	case l.Line > 0:
		return fmt.Sprintf("%s:%d", f, l.Line)
	}
	return f
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary is the one-line outcome of r: "clean", or the counts.
func (r *Report) Summary() string {
	if len(r.Findings) == 0 {
		return "clean: the scope agrees with the instruction"
	}
	return fmt.Sprintf("%s, %s, %s", plural(r.Count(Error), "error", "errors"), plural(r.Count(Warning), "warning", "warnings"), plural(r.Count(Advice), "advice", "advice"))
}

// WriteText writes reports for people: per task, findings grouped by the
// file they are fixed in, each with its line quoted and related places
// below it; then where the instruction promises each surface; then a
// summary line. Paths are relative to base.
func WriteText(w io.Writer, reports []*Report, base string) error {
	ew := &errWriter{w: w}
	for i, r := range reports {
		if i > 0 {
			ew.printf("\n")
		}
		file := ""
		for _, f := range r.Findings {
			l := f.Locations[0]
			if l.File != file {
				if file != "" {
					ew.printf("\n")
				}
				file = l.File
				ew.printf("%s\n", rel(base, file))
			}
			pos := "-"
			switch {
			case l.Line > 0 && l.Column > 0:
				pos = fmt.Sprintf("%d:%d", l.Line, l.Column)
			case l.Line > 0:
				pos = fmt.Sprintf("%d", l.Line)
			}
			field := ""
			if l.Field != "" {
				field = l.Field + ": "
			}
			ew.printf("  %s: %s: %s%s [%s]\n", pos, f.Severity, field, f.Msg, f.Rule)
			if l.Quote != "" {
				ew.printf("      | %s\n", l.Quote)
			}
			for _, o := range f.Locations[1:] {
				note := o.Note
				if note != "" {
					note = ": " + note
				}
				ew.printf("    %s%s\n", o.where(base), note)
				if o.Quote != "" {
					ew.printf("      | %s\n", o.Quote)
				}
			}
		}
		if len(r.Findings) > 0 && len(r.Mentions) > 0 {
			ew.printf("\n")
		}
		for _, m := range r.Mentions {
			if m.Line > 0 {
				ew.printf("surface %s: promised at %s:%d (%q)\n", m.Surface, rel(base, r.Instruction), m.Line, m.Phrase)
			} else {
				ew.printf("surface %s: not mentioned in %s\n", m.Surface, rel(base, r.Instruction))
			}
		}
		ew.printf("%s: %s\n", r.Name(), r.Summary())
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

type jsonLocation struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Field  string `json:"field,omitempty"`
	Quote  string `json:"quote,omitempty"`
	Note   string `json:"note,omitempty"`
}

type jsonFinding struct {
	Rule      string         `json:"rule"`
	Severity  string         `json:"severity"`
	Message   string         `json:"message"`
	Locations []jsonLocation `json:"locations"`
}

type jsonSurface struct {
	ID        string `json:"id"`
	Mentioned bool   `json:"mentioned"`
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Phrase    string `json:"phrase,omitempty"`
}

type jsonReport struct {
	Task     string        `json:"task"`
	Dir      string        `json:"dir"`
	OK       bool          `json:"ok"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Advice   int           `json:"advice"`
	Surfaces []jsonSurface `json:"surfaces"`
	Findings []jsonFinding `json:"findings"`
}

// WriteJSON writes reports as a JSON list, one object per task: task,
// dir, ok (false when it has an error, or with strict a warning), the
// counts, surfaces (where each is promised) and findings (rule, severity,
// message, locations: file, line, column, field, quote, note).
func WriteJSON(w io.Writer, reports []*Report, base string, strict bool) error {
	out := []jsonReport{}
	for _, r := range reports {
		jr := jsonReport{Task: r.Name(), Dir: rel(base, r.Dir), OK: !r.Failed(strict),
			Errors: r.Count(Error), Warnings: r.Count(Warning), Advice: r.Count(Advice),
			Surfaces: []jsonSurface{}, Findings: []jsonFinding{}}
		for _, m := range r.Mentions {
			jr.Surfaces = append(jr.Surfaces, jsonSurface{ID: m.Surface, Mentioned: m.Line > 0, File: rel(base, r.Instruction), Line: m.Line, Phrase: m.Phrase})
		}
		for _, f := range r.Findings {
			jf := jsonFinding{Rule: f.Rule, Severity: f.Severity.String(), Message: f.Msg, Locations: []jsonLocation{}}
			for _, l := range f.Locations {
				jf.Locations = append(jf.Locations, jsonLocation{File: rel(base, l.File), Line: l.Line, Column: l.Column, Field: l.Field, Quote: l.Quote, Note: l.Note})
			}
			jr.Findings = append(jr.Findings, jf)
		}
		out = append(out, jr)
	}
	return writeIndented(w, out)
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// SARIF 2.1.0 (OASIS): the subset srb emits. internal/lint/testdata/
// sarif-srb.schema.json is the JSON Schema of exactly this subset.

// SARIFSchemaURI is the $schema srb writes into its SARIF logs.
const SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	Help                 sarifMessage `json:"help"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID           string                 `json:"ruleId"`
	RuleIndex        *int                   `json:"ruleIndex,omitempty"`
	Level            string                 `json:"level"`
	Message          sarifMessage           `json:"message"`
	Locations        []sarifLocation        `json:"locations"`
	RelatedLocations []sarifRelatedLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifRelatedLocation struct {
	ID               int           `json:"id"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine   int           `json:"startLine"`
	StartColumn int           `json:"startColumn,omitempty"`
	Snippet     *sarifMessage `json:"snippet,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func physical(l Location, base string) sarifPhysical {
	var p sarifPhysical
	p.ArtifactLocation.URI = (&url.URL{Path: rel(base, l.File)}).String()
	if l.Line > 0 {
		p.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column}
		if l.Quote != "" {
			p.Region.Snippet = &sarifMessage{Text: l.Quote}
		}
	}
	return p
}

// WriteSARIF writes reports as one SARIF 2.1.0 log with one run: the
// driver lists every lint rule, and each finding is a result whose level
// is error, warning or note (advice). Loader problems (a task that does
// not load) are results under their validate rule ids, without a rule
// index.
func WriteSARIF(w io.Writer, reports []*Report, base string) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "srb", InformationURI: "https://github.com/swe-refactor-bench/srb"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for i, r := range rules {
		sr := sarifRule{ID: r.ID, ShortDescription: sarifMessage{Text: r.Title}, Help: sarifMessage{Text: r.Help}}
		sr.DefaultConfiguration.Level = r.Severity.sarifLevel()
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
		index[r.ID] = i
	}
	for _, r := range reports {
		for _, f := range r.Findings {
			res := sarifResult{RuleID: f.Rule, Level: f.Severity.sarifLevel(), Message: sarifMessage{Text: f.Msg}}
			if i, ok := index[f.Rule]; ok {
				res.RuleIndex = &i
			}
			l := f.Locations[0]
			loc := sarifLocation{PhysicalLocation: physical(l, base)}
			if l.Field != "" {
				loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: l.Field, Kind: "member"}}
			}
			res.Locations = []sarifLocation{loc}
			for k, o := range f.Locations[1:] {
				rl := sarifRelatedLocation{ID: k + 1, PhysicalLocation: physical(o, base)}
				if o.Note != "" {
					rl.Message = &sarifMessage{Text: o.Note}
				}
				res.RelatedLocations = append(res.RelatedLocations, rl)
			}
			run.Results = append(run.Results, res)
		}
	}
	return writeIndented(w, sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

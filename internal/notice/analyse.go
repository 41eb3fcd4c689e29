package notice

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// Finding is what one State A archive says about its own licensing.
type Finding struct {
	// Top is the archive's one top-level folder ("cmark-0.30.2"); every
	// path below is relative to it. Every name is as archive.QuoteName
	// writes it: a name holding a control character is Go-quoted.
	Top string `json:"top"`
	// Expression is the SPDX expression found: Main first, then the other
	// ids of the top-level licence files in byte order, joined by " AND "
	// (or, with no licence file, the ids of file headers). "" when
	// nothing was recognised.
	Expression string `json:"expression"`
	// Main is the release's own terms: the first licence of the top-level
	// licence files that is not stated for named files only (go-yaml's
	// LICENSE states MIT for eight files, then Apache-2.0 for the rest, so
	// Main is Apache-2.0).
	Main string `json:"main"`
	// FromHeaders is true when the release has no top-level licence file
	// and Expression comes from file headers.
	FromHeaders bool `json:"from_headers,omitempty"`
	// Copyright holds the copyright statements of the top-level licence
	// and NOTICE files (of file headers when there is no licence file),
	// deduplicated, in order.
	Copyright []string `json:"copyright"`
	// LicenceFiles are the top-level LICENSE*, LICENCE*, COPYING*,
	// COPYRIGHT* and UNLICENSE files, sorted.
	LicenceFiles []string `json:"licence_files"`
	// NestedLicenceFiles are licence files deeper in the tree, sorted.
	NestedLicenceFiles []string `json:"nested_licence_files,omitempty"`
	// OtherTerms are the files (or folders, ending in "/") under terms
	// other than Main, sorted by path.
	OtherTerms []OtherTerm `json:"other_terms,omitempty"`
	// Notices are the upstream NOTICE files, anywhere in the tree, sorted
	// by path.
	Notices []NoticeFile `json:"notices,omitempty"`
	// Review lists the licence files whose text known licences match for
	// less than [MinCoverage] percent of its words, sorted by path. Their
	// ids are not published: a top-level one leaves Expression "" (the
	// terms need review by hand), a nested one adds no other terms.
	Review []Review `json:"review,omitempty"`
	// Declared is the SPDX expression the release's own package metadata
	// states (Cargo.toml, package.json, pyproject.toml, setup.cfg,
	// *.gemspec at the top), "" when none does. When it holds an OR and
	// names exactly the ids of the top-level licence files, Expression is
	// it: a choice of licences stays a choice.
	Declared string `json:"declared,omitempty"`
}

// Review is a licence file whose terms need review by hand.
type Review struct {
	Path     string `json:"path"`     // relative to the archive's top folder
	Coverage int    `json:"coverage"` // percent of its words known licences match
	SHA256   string `json:"sha256"`   // of the file's bytes (as read, at most 1 MiB)
}

// MinCoverage is the percentage of a licence file's words that known
// licence texts (and SPDX-License-Identifier lines) must match for srb
// to publish the ids found in it. Real licence files with a copyright
// line and a few lines of prose around one or more licence texts score
// 90 and more; proprietary terms holding one permissive paragraph score
// far less.
const MinCoverage = 80

// OtherTerm is one file or folder under terms other than the release's.
type OtherTerm struct {
	// Path is a file, or a folder ending in "/" (the folder of a nested
	// licence file).
	Path string `json:"path"`
	// ID is the SPDX expression of its terms ("MIT", "GPL-3.0-or-later
	// WITH Autoconf-exception-macro").
	ID string `json:"id"`
	// From says how it was found: "header" (licensecheck over the file's
	// first 8 KiB) or the licence file that names it.
	From string `json:"from"`
}

// NoticeFile is an upstream NOTICE file, reproduced in full
// (Apache-2.0 §4(d)).
type NoticeFile struct {
	Path string `json:"path"` // relative to the archive's top folder
	Text string `json:"text"` // the whole file (at most 1 MiB of it), control characters escaped (archive.EscapeText)
}

const (
	// headSize is how much of each file is read for a licence header.
	headSize = 8 << 10
	// maxLicenceSize caps what is read of a licence or NOTICE file.
	maxLicenceSize = 1 << 20
	// lead is how much text before the first licence keyword of a head is
	// kept for the scan (a copyright line above the grant).
	lead = 1 << 10
)

// keywords pre-filter heads: licensecheck runs only on a head holding one
// of them (in lower case).
var keywords = [][]byte{
	[]byte("licen"), []byte("copyright"), []byte("public domain"),
	[]byte("permission is hereby"), []byte("creativecommons"), []byte("gnu general"),
	[]byte("redistribution and use"), []byte("permission to use"),
}

// Analyse reads the canonical State A archive at archivePath (a .tar.gz
// with one top-level folder) without extracting it and reports its
// licence files, the SPDX expression they state, copyright holders,
// files under other terms and NOTICE files. Errors name the archive.
func Analyse(archivePath string) (*Finding, error) {
	f, err := os.Open(archivePath)
	if err != nil {
		return nil, fmt.Errorf("analyse licences: %w", err)
	}
	defer f.Close()
	fd, err := analyse(f)
	if err != nil {
		return nil, fmt.Errorf("analyse licences of %s: %w", archivePath, err)
	}
	return fd, nil
}

// AnalyseCached is [Analyse] of the archive at archivePath, kept beside
// it by [archive.Derived] ("original.tar.gz.licences.json") and read from
// there while the archive file and srb's build are the same ones.
func AnalyseCached(archivePath string) (*Finding, error) {
	if _, err := os.Stat(archivePath); err != nil {
		return Analyse(archivePath) // its error names what it could not open
	}
	return archive.Derived(archivePath, "licences", func() (*Finding, error) { return Analyse(archivePath) })
}

// headResult is what the scan of one file's head found.
type headResult struct {
	path string
	ids  []string
	text []byte // the header block scanned
}

type textFile struct {
	path string
	text []byte
}

// scanPool runs detect on texts in the background while the archive is
// still being decoded, remembering each distinct text's result (files
// that carry the same header are scanned once).
type scanPool struct {
	jobs chan textFile
	wg   sync.WaitGroup
	mu   sync.Mutex
	memo map[string][]hit
	hits map[string][]hit // path → hits
	err  error
}

func newScanPool() *scanPool {
	p := &scanPool{jobs: make(chan textFile, 64), memo: map[string][]hit{}, hits: map[string][]hit{}}
	for range runtime.GOMAXPROCS(0) {
		p.wg.Go(func() {
			for j := range p.jobs {
				p.mu.Lock()
				hits, seen := p.memo[string(j.text)]
				p.mu.Unlock()
				var err error
				if !seen {
					hits, err = detect(j.text)
				}
				p.mu.Lock()
				p.memo[string(j.text)] = hits
				p.hits[j.path] = hits
				if err != nil && p.err == nil {
					p.err = err
				}
				p.mu.Unlock()
			}
		})
	}
	return p
}

// wait closes the pool and returns the hits by path.
func (p *scanPool) wait() (map[string][]hit, error) {
	close(p.jobs)
	p.wg.Wait()
	return p.hits, p.err
}

func analyse(r io.Reader) (*Finding, error) {
	if _, err := licenceScanner(); err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)

	pool := newScanPool()
	fd := &Finding{}
	var files []string
	var licences, nested, notices, heads, metadata []textFile
	buf := make([]byte, headSize)
	lower := make([]byte, headSize)
	err = func() error {
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			top, rel, ok := strings.Cut(strings.TrimPrefix(h.Name, "./"), "/")
			if !ok || rel == "" {
				continue
			}
			// Names reach NOTICE and validate's messages: no control
			// character in one may make a line there.
			top, rel = archive.QuoteName(top), archive.QuoteName(rel)
			if fd.Top == "" {
				fd.Top = top
			}
			files = append(files, rel)
			base := path.Base(rel)
			if !strings.Contains(rel, "/") && isMetadataName(base) {
				b, err := io.ReadAll(io.LimitReader(tr, maxLicenceSize))
				if err != nil {
					return fmt.Errorf("read %s: %w", rel, err)
				}
				metadata = append(metadata, textFile{path: rel, text: b})
				continue
			}
			switch {
			case isLicenceName(base), isNoticeName(base):
				b, err := io.ReadAll(io.LimitReader(tr, maxLicenceSize))
				if err != nil {
					return fmt.Errorf("read %s: %w", rel, err)
				}
				tf := textFile{path: rel, text: b}
				switch {
				case isNoticeName(base):
					notices = append(notices, tf)
					continue
				case !strings.Contains(rel, "/"):
					licences = append(licences, tf)
				default:
					nested = append(nested, tf)
				}
				pool.jobs <- tf
				continue
			}
			n, err := io.ReadFull(tr, buf)
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read %s: %w", rel, err)
			}
			head := buf[:n]
			if bytes.IndexByte(head, 0) >= 0 {
				continue // binary
			}
			at := firstKeyword(head, lower[:n])
			if at < 0 {
				continue
			}
			tf := textFile{path: rel, text: bytes.Clone(headerBlock(head, at))}
			heads = append(heads, tf)
			pool.jobs <- tf
		}
	}()
	hits, perr := pool.wait()
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, perr
	}
	if fd.Top == "" {
		return nil, errors.New("no top-level folder holding files")
	}
	sort.Strings(files)
	for _, l := range [][]textFile{licences, nested, notices, heads, metadata} {
		sort.Slice(l, func(i, j int) bool { return l[i].path < l[j].path })
	}
	var hr []headResult
	for _, h := range heads {
		if ids := ids(hits[h.path]); len(ids) > 0 {
			hr = append(hr, headResult{path: h.path, ids: ids, text: h.text})
		}
	}
	fd.Declared = declared(metadata)
	fd.fill(files, licences, nested, notices, hr, hits)
	return fd, nil
}

// fill works out the finding from what the pass collected.
func (fd *Finding) fill(files []string, licences, nested, notices []textFile, heads []headResult, hitsOf map[string][]hit) {
	ix := newFileIndex(files)
	terms := map[string]*OtherTerm{}
	addTerm := func(p, id, from string) {
		if t, ok := terms[p]; ok {
			if !strings.Contains(" AND "+t.ID+" AND ", " AND "+id+" AND ") {
				t.ID += " AND " + id
			}
			if !strings.Contains(", "+t.From+", ", ", "+from+", ") {
				t.From += ", " + from
			}
			return
		}
		terms[p] = &OtherTerm{Path: p, ID: id, From: from}
	}
	licenceSet := map[string]bool{}
	for _, l := range licences {
		licenceSet[l.path] = true
		fd.LicenceFiles = append(fd.LicenceFiles, l.path)
	}
	for _, l := range nested {
		licenceSet[l.path] = true
		fd.NestedLicenceFiles = append(fd.NestedLicenceFiles, l.path)
	}

	// Top-level licence files: the expression, Main, and the files a
	// licence file names as under a licence of its own.
	var found []string
	type named struct{ path, id, from string }
	var stated []named
	reviewTop := false
	for _, l := range licences {
		hits := hitsOf[l.path]
		if c := coverage(l.text, hits); c < MinCoverage {
			// Not a licence text srb knows, or one inside other terms:
			// publish nothing from it.
			fd.Review = append(fd.Review, Review{Path: l.path, Coverage: c, SHA256: sha256Hex(l.text)})
			reviewTop = true
			fd.Copyright = appendNew(fd.Copyright, copyrights(l.text)...)
			continue
		}
		prev := 0
		for _, h := range hits {
			found = append(found, h.ID)
			// The files a licence is stated for are named before it or in
			// its heading, which licensecheck counts as part of the match.
			var paths []string
			if h.End > prev {
				paths = ix.named(string(l.text[prev:h.End]), licenceSet)
			}
			prev = max(prev, h.End)
			if len(paths) == 0 && fd.Main == "" {
				fd.Main = h.ID
			}
			for _, p := range paths {
				stated = append(stated, named{p, h.ID, l.path})
			}
		}
		fd.Copyright = appendNew(fd.Copyright, copyrights(l.text)...)
	}
	if len(licences) == 0 {
		fd.FromHeaders = true
		count := map[string]int{}
		for _, h := range heads {
			for _, id := range h.ids {
				count[id]++
				found = append(found, id)
			}
			fd.Copyright = appendNew(fd.Copyright, copyrights(h.text)...)
		}
		for id, n := range count {
			if n > count[fd.Main] || (n == count[fd.Main] && id < fd.Main) {
				fd.Main = id
			}
		}
	}
	if fd.Main == "" && len(found) > 0 {
		fd.Main = found[0]
	}
	for _, n := range notices {
		fd.Copyright = appendNew(fd.Copyright, copyrights(n.text)...)
		fd.Notices = append(fd.Notices, NoticeFile{Path: n.path, Text: archive.EscapeText(string(n.text))})
	}
	if fd.Main != "" {
		rest := appendNew(nil, found...)
		rest = slicesDelete(rest, fd.Main)
		sort.Strings(rest)
		fd.Expression = strings.Join(append([]string{fd.Main}, rest...), " AND ")
	}
	// A choice the package itself declares between exactly the licences
	// its licence files hold stays a choice.
	if d, err := ParseExpr(fd.Declared); err == nil && d.hasOr() && len(licences) > 0 && sameSet(d.IDs(), appendNew(nil, found...)) {
		fd.Main = d.String()
		fd.Expression = d.String()
	}
	if reviewTop {
		fd.Expression = ""
	}

	mainIDs := map[string]bool{}
	if m, err := ParseExpr(fd.Main); err == nil && m.hasOr() {
		for _, id := range m.IDs() {
			mainIDs[id] = true
		}
	}
	// underMain: the release's own terms, or (under a declared choice)
	// only licences of that choice.
	underMain := func(idList []string) bool {
		if strings.Join(idList, " AND ") == fd.Main {
			return true
		}
		if len(mainIDs) == 0 {
			return false
		}
		for _, id := range idList {
			if !mainIDs[id] {
				return false
			}
		}
		return true
	}
	for _, s := range stated {
		if !underMain([]string{s.id}) {
			addTerm(s.path, s.id, s.from)
		}
	}
	for _, h := range heads {
		if licenceSet[h.path] {
			continue
		}
		if !underMain(h.ids) {
			addTerm(h.path, strings.Join(h.ids, " AND "), "header")
		}
	}
	for _, l := range nested {
		hits := hitsOf[l.path]
		if c := coverage(l.text, hits); len(hits) > 0 && c < MinCoverage {
			fd.Review = append(fd.Review, Review{Path: l.path, Coverage: c, SHA256: sha256Hex(l.text)})
			continue
		}
		if idList := ids(hits); len(idList) > 0 && !underMain(idList) {
			addTerm(path.Dir(l.path)+"/", strings.Join(idList, " AND "), l.path)
		}
	}
	sort.Slice(fd.Review, func(i, j int) bool { return fd.Review[i].Path < fd.Review[j].Path })
	for _, t := range terms {
		fd.OtherTerms = append(fd.OtherTerms, *t)
	}
	sort.Slice(fd.OtherTerms, func(i, j int) bool { return fd.OtherTerms[i].Path < fd.OtherTerms[j].Path })
}

// firstKeyword returns the offset of the first licence keyword in head,
// or -1; lower is scratch space as long as head.
func firstKeyword(head, lower []byte) int {
	for i, c := range head {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	at := -1
	for _, k := range keywords {
		if i := bytes.Index(lower, k); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// isLicenceName reports whether a file's base name marks a licence file.
func isLicenceName(base string) bool {
	u := strings.ToUpper(base)
	for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "COPYRIGHT"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return u == "UNLICENSE" || strings.HasPrefix(u, "UNLICENSE.")
}

// isNoticeName reports whether a file's base name marks a NOTICE file.
func isNoticeName(base string) bool {
	u := strings.ToUpper(base)
	return u == "NOTICE" || strings.HasPrefix(u, "NOTICE.")
}

// fileIndex finds the files a licence file's prose names.
type fileIndex struct {
	files  map[string]bool
	dirs   map[string]bool
	byBase map[string][]string
}

func newFileIndex(files []string) *fileIndex {
	ix := &fileIndex{files: map[string]bool{}, dirs: map[string]bool{}, byBase: map[string][]string{}}
	for _, f := range files {
		ix.files[f] = true
		ix.byBase[path.Base(f)] = append(ix.byBase[path.Base(f)], f)
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			ix.dirs[d+"/"] = true
		}
	}
	return ix
}

// maxSameBase is how many files may share a base name a licence file
// mentions before the mention is taken as too vague to name them.
const maxSameBase = 3

// named returns the files and folders prose names: exact paths, folders
// written with a trailing "/", and base names shared by at most
// maxSameBase files. Licence files are never named.
func (ix *fileIndex) named(prose string, licences map[string]bool) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(prose, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || strings.ContainsRune(",;()<>\"'`[]{}", r)
	}) {
		tok = strings.TrimPrefix(strings.TrimRight(tok, ".:!?"), "./")
		if !strings.ContainsAny(tok, "./") || strings.Contains(tok, "://") || strings.Contains(tok, "@") {
			continue
		}
		switch {
		case ix.files[tok]:
			out = append(out, tok)
		case strings.HasSuffix(tok, "/") && ix.dirs[tok]:
			out = append(out, tok)
		case len(ix.byBase[tok]) > 0 && len(ix.byBase[tok]) <= maxSameBase:
			out = append(out, ix.byBase[tok]...)
		}
	}
	var keep []string
	for _, p := range appendNew(nil, out...) {
		if !licences[p] {
			keep = append(keep, p)
		}
	}
	return keep
}

// appendNew appends the xs not already in dst.
func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		found := false
		for _, d := range dst {
			if d == x {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, x)
		}
	}
	return dst
}

func slicesDelete(xs []string, x string) []string {
	out := xs[:0]
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// coverage returns the percentage (0 to 100, rounded down) of text's
// words that lie inside hits: how much of a licence file known licence
// texts account for. A text with no words has coverage 100.
func coverage(text []byte, hits []hit) int {
	words, in := 0, 0
	inWord := false
	for i, c := range text {
		space := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
		if !space && !inWord {
			words++
			for _, h := range hits {
				if i >= h.Start && i < h.End {
					in++
					break
				}
			}
		}
		inWord = !space
	}
	if words == 0 {
		return 100
	}
	return in * 100 / words
}

// isMetadataName reports whether a top-level file's base name is package
// metadata that may declare the release's licence.
func isMetadataName(base string) bool {
	switch base {
	case "Cargo.toml", "package.json", "pyproject.toml", "setup.cfg", "composer.json":
		return true
	}
	return strings.HasSuffix(base, ".gemspec")
}

var (
	tomlLicence    = regexp.MustCompile(`(?m)^\s*license\s*=\s*(?:\{\s*text\s*=\s*)?"([^"\n]+)"`)
	cfgLicence     = regexp.MustCompile(`(?m)^\s*license\s*=\s*([^\n#;]+?)\s*$`)
	gemspecLicence = regexp.MustCompile(`(?m)\.license\s*=\s*['"]([^'"\n]+)['"]`)
)

// declared returns the licence expression the release's package metadata
// states (the first of metadata, in path order, that states one parseable
// as SPDX), or "".
func declared(metadata []textFile) string {
	for _, m := range metadata {
		var v string
		switch base := path.Base(m.path); {
		case base == "package.json" || base == "composer.json":
			var pj struct {
				License any `json:"license"`
			}
			if json.Unmarshal(m.text, &pj) == nil {
				v, _ = pj.License.(string)
			}
		case base == "Cargo.toml" || base == "pyproject.toml":
			if sm := tomlLicence.FindSubmatch(m.text); sm != nil {
				v = string(sm[1])
			}
		case base == "setup.cfg":
			if sm := cfgLicence.FindSubmatch(m.text); sm != nil {
				v = string(sm[1])
			}
		default:
			if sm := gemspecLicence.FindSubmatch(m.text); sm != nil {
				v = string(sm[1])
			}
		}
		// Cargo's old "MIT/Apache-2.0" form means OR.
		v = strings.ReplaceAll(v, "/", " OR ")
		if e, err := ParseExpr(v); err == nil {
			return e.String()
		}
	}
	return ""
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	bset := map[string]bool{}
	for _, x := range b {
		if !set[x] {
			return false
		}
		bset[x] = true
	}
	return len(bset) == len(set)
}

// sha256Hex is the lower-case hex sha256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

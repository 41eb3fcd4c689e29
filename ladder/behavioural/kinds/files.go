package kinds

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// digestsKind runs steps, then digests the files they produced.
type digestsKind struct{ DigestsParams }

func (k *digestsKind) observe(m *module) error {
	build, err := m.restoreOrFail(k.Configuration)
	if err != nil || build == "" {
		return err
	}
	dir, err := m.scratch("digests")
	if err != nil {
		return err
	}
	vals := map[string]string{"BUILD": build, "WORK": dir, "DATA": m.data()}
	for i, step := range k.Steps {
		r := m.runProc(expandAll(step, vals), dir, m.submissionEnv(nil, vals), nil, DefaultCaseTimeout*6)
		m.emit(fmt.Sprintf("step-%d/exit", i+1), statusText(r), nil)
	}
	for _, f := range k.Files {
		p := expand(f, vals)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		base := dir // the files the steps wrote, or the build's (${BUILD}/…)
		if within(filepath.Clean(build), filepath.Clean(p)) {
			base = build
		}
		m.emit(f, fileDigestUnder(base, p), nil)
	}
	return nil
}

// treeKind installs into a fresh prefix and observes the tree there.
type treeKind struct{ TreeParams }

// Entry is one path of an install tree: Type is file, dir or symlink;
// Mode the permission bits in octal; Target a link's target; Digest a
// file's "sha256:<hex>".
type Entry struct {
	Type   string `json:"type"`
	Mode   string `json:"mode"`
	Target string `json:"target,omitempty"`
	Digest string `json:"digest,omitempty"`
}

func (k *treeKind) observe(m *module) error {
	build, err := m.restoreOrFail(k.Configuration)
	if err != nil || build == "" {
		return err
	}
	prefix, err := m.scratch("prefix")
	if err != nil {
		return err
	}
	work := filepath.Dir(prefix)
	vals := map[string]string{"BUILD": build, "WORK": work, "DATA": m.data(), "PREFIX": prefix}
	for i, step := range k.Install {
		r := m.runProc(expandAll(step, vals), build, m.submissionEnv(nil, vals), nil, BuildTimeout)
		m.emit(fmt.Sprintf("install-%d/exit", i+1), statusText(r), nil)
	}
	tree, err := ObserveTree(prefix, k.Include)
	if errors.Is(err, errTreeTooLarge) || errors.Is(err, errTooManyEntries) {
		// What the install steps left: the submission's doing.
		m.notObserved("the installed tree: " + err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	for p, e := range tree {
		if e.Type == "file" && matchAny(k.Opaque, p) {
			e.Digest = ""
			tree[p] = e
		}
	}
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	m.emit("paths", paths, nil)
	for _, p := range paths {
		m.emit("path:"+p, tree[p], nil)
	}
	return nil
}

// matchAny reports whether rel (slash-separated) matches one of globs:
// path.Match syntax, and "dir/**" for everything below dir.
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
		if strings.HasSuffix(g, "/**") && strings.HasPrefix(rel, strings.TrimSuffix(g, "/**")+"/") {
			return true
		}
	}
	return false
}

// TreeEntriesLimit and TreeBytesLimit bound what [ObserveTree] walks and
// reads of an installed tree (which the submission's install steps
// wrote): 100000 entries, and 1 GiB of regular files digested (each file
// also at most [ObservedBytesLimit]).
const (
	TreeEntriesLimit = 100000
	TreeBytesLimit   = 1 << 30
)

// errTooManyEntries is wrapped when a tree has more than TreeEntriesLimit
// entries.
var errTooManyEntries = fmt.Errorf("more than %d entries", TreeEntriesLimit)

// errTreeTooLarge is returned when a tree's regular files hold more than
// TreeBytesLimit bytes.
var errTreeTooLarge = fmt.Errorf("its files hold more than %d bytes", TreeBytesLimit)

// ObserveTree returns every path under root (relative, slash-separated)
// whose path matches one of include (globs; all when empty), with its
// type, mode, link target and digest (a file's under [fileDigest]'s
// rules). Errors: the walk's, or one wrapping errTooManyEntries (more
// than [TreeEntriesLimit] entries walked) or errTreeTooLarge (the regular
// files matched hold more than [TreeBytesLimit] bytes).
func ObserveTree(root string, include []string) (map[string]Entry, error) {
	out := map[string]Entry{}
	walked, bytes := 0, int64(0)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if walked++; walked > TreeEntriesLimit {
			return errTooManyEntries
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if len(include) > 0 && !matchAny(include, rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := Entry{Mode: fmt.Sprintf("%04o", info.Mode().Perm())}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.Type = "symlink"
			e.Target, _ = os.Readlink(p)
		case d.IsDir():
			e.Type = "dir"
		case info.Mode().IsRegular():
			if bytes += info.Size(); bytes > TreeBytesLimit {
				return errTreeTooLarge
			}
			e.Type = "file"
			e.Digest = fileDigest(p)
		default:
			e.Type = "other"
		}
		out[rel] = e
		return nil
	})
	return out, err
}

// symbolsKind reads dynamic symbol tables.
type symbolsKind struct{ SymbolsParams }

func (k *symbolsKind) observe(m *module) error {
	build, err := m.restoreOrFail(k.Configuration)
	if err != nil || build == "" {
		return err
	}
	var re *regexp.Regexp
	if k.Match != "" {
		if re, err = regexp.Compile(k.Match); err != nil {
			return fmt.Errorf("match: %w", err)
		}
	}
	for _, lib := range k.Libraries {
		syms, err := librarySymbols(build, lib)
		if err != nil {
			m.emit(lib, "unreadable: "+err.Error(), nil)
			continue
		}
		kept := []string{}
		for _, s := range syms {
			if re == nil || re.MatchString(s) {
				kept = append(kept, s)
			}
		}
		m.emit(lib, kept, nil)
	}
	return nil
}

// LibraryBytesLimit bounds the size of a library the symbols kind reads
// (256 MiB): its sections are read into memory.
const LibraryBytesLimit = 256 << 20

// librarySymbols reads the symbols of lib (relative to build, a tree the
// submission's build left): links followed only inside build, the file
// then opened under openObserved's rules (a FIFO, a device or a link out
// of the tree is refused, never read).
func librarySymbols(build, lib string) ([]string, error) {
	p, err := resolveWithin(build, lib)
	if err != nil {
		return nil, err
	}
	f, err := openObserved(p, LibraryBytesLimit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return exportedSymbols(f)
}

// ExportedSymbols returns the defined global and weak symbols of the ELF
// file's dynamic symbol table as "name@version kind" (version empty when
// unversioned; kind func, object, tls or other), sorted.
func ExportedSymbols(p string) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return exportedSymbols(f)
}

// exportedSymbols is [ExportedSymbols] of an open file.
func exportedSymbols(r io.ReaderAt) ([]string, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, err
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF {
			continue
		}
		bind := elf.ST_BIND(s.Info)
		if bind != elf.STB_GLOBAL && bind != elf.STB_WEAK {
			continue
		}
		kind := "other"
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			kind = "func"
		case elf.STT_OBJECT:
			kind = "object"
		case elf.STT_TLS:
			kind = "tls"
		}
		out = append(out, fmt.Sprintf("%s@%s %s", s.Name, s.Version, kind))
	}
	sort.Strings(out)
	return out, nil
}

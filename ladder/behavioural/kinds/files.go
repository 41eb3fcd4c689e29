package kinds

import (
	"debug/elf"
	"fmt"
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
	dir := filepath.Join(m.work, "digests")
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vals := map[string]string{"BUILD": build, "WORK": dir, "DATA": m.plan.TaskDir}
	for i, step := range k.Steps {
		r := runProc(expandAll(step, vals), dir, submissionEnv(nil, vals), nil, DefaultCaseTimeout*6)
		m.emit(fmt.Sprintf("step-%d/exit", i+1), statusText(r), nil)
	}
	for _, f := range k.Files {
		p := expand(f, vals)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		m.emit(f, fileDigest(p), nil)
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
	prefix := filepath.Join(m.work, "prefix")
	_ = os.RemoveAll(prefix)
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return err
	}
	vals := map[string]string{"BUILD": build, "WORK": m.work, "DATA": m.plan.TaskDir, "PREFIX": prefix}
	for i, step := range k.Install {
		r := runProc(expandAll(step, vals), build, submissionEnv(nil, vals), nil, BuildTimeout)
		m.emit(fmt.Sprintf("install-%d/exit", i+1), statusText(r), nil)
	}
	tree, err := ObserveTree(prefix, k.Include)
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

// ObserveTree returns every path under root (relative, slash-separated)
// whose path matches one of include (globs; all when empty), with its
// type, mode, link target and digest.
func ObserveTree(root string, include []string) (map[string]Entry, error) {
	out := map[string]Entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
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
		syms, err := ExportedSymbols(filepath.Join(build, lib))
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

// ExportedSymbols returns the defined global and weak symbols of the ELF
// file's dynamic symbol table as "name@version kind" (version empty when
// unversioned; kind func, object, tls or other), sorted.
func ExportedSymbols(p string) ([]string, error) {
	f, err := elf.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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

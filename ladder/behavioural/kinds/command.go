package kinds

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"golang.org/x/sys/unix"
)

// DefaultCaseTimeout bounds a command case that declares no timeout.
const DefaultCaseTimeout = 10 * time.Second

type commandKind struct {
	CommandParams
	norm *normaliser
	// env is the environment every case starts from ([module.baseEnv]),
	// made once per module.
	env []string
	// casesDir holds each case's fresh folder (the module's scratch).
	casesDir string
}

// resolved is one case ready to run, with the expected stdout when a
// corpus file gives it.
type resolved struct {
	Case
	stdinBytes []byte
	expect     *string
}

// cases returns the inline cases then the corpus's, in order. original
// is State A's tree ("" when the stage was given none); scratch is where
// the inputs of split cases are written.
func (k *commandKind) cases(taskDir, original, scratch string) ([]resolved, error) {
	var out []resolved
	ids := map[string]bool{}
	add := func(r resolved) error {
		if ids[r.ID] {
			return fmt.Errorf("two cases have the id %q", r.ID)
		}
		ids[r.ID] = true
		out = append(out, r)
		return nil
	}
	for _, c := range k.Cases {
		r := resolved{Case: c, stdinBytes: []byte(c.Stdin)}
		if c.StdinFile != "" {
			b, err := os.ReadFile(filepath.Join(taskDir, c.StdinFile))
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.ID, err)
			}
			r.stdinBytes = b
		}
		if err := add(r); err != nil {
			return nil, err
		}
	}
	c := k.Corpus
	if c == nil {
		return out, nil
	}
	base := taskDir
	switch c.From {
	case "", "task":
	case "original":
		if original == "" {
			return nil, fmt.Errorf("corpus %s is read from State A's tree, and the stage was given none ($%s is unset)", c.Dir, behavioural.EnvOriginal)
		}
		base = original
	default:
		return nil, fmt.Errorf("corpus from %q: want task or original", c.From)
	}
	if c.Split != nil && c.Expect != "" {
		return nil, fmt.Errorf("corpus %s: expect and split exclude each other", c.Dir)
	}
	root := filepath.Join(base, c.Dir)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ok, _ := path.Match(c.Glob, d.Name()); ok && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", c.Dir, err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus %s has no file matching %s", c.Dir, c.Glob)
	}
	var sp *splitter
	if c.Split != nil {
		if sp, err = compileSplit(c.Split); err != nil {
			return nil, fmt.Errorf("corpus %s: split: %w", c.Dir, err)
		}
	}
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		stem := strings.TrimSuffix(rel, path.Ext(rel))
		if sp != nil {
			parts, err := sp.split(p)
			if err != nil {
				return nil, fmt.Errorf("corpus %s: %w", c.Dir, err)
			}
			width := max(4, len(strconv.Itoa(len(parts))))
			for i, in := range parts {
				id := fmt.Sprintf("%s/%0*d", stem, width, i+1)
				input := filepath.Join(scratch, filepath.FromSlash(id))
				if err := os.MkdirAll(filepath.Dir(input), 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(input, in, 0o644); err != nil {
					return nil, err
				}
				r := resolved{Case: Case{ID: id, Argv: expandAll(c.Argv, map[string]string{"INPUT": input}), TimeoutSec: c.TimeoutSec}}
				if c.Stdin {
					r.stdinBytes = in
				}
				if err := add(r); err != nil {
					return nil, err
				}
			}
			continue
		}
		r := resolved{Case: Case{ID: stem, Argv: expandAll(c.Argv, map[string]string{"INPUT": p}), TimeoutSec: c.TimeoutSec}}
		if c.Stdin {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			r.stdinBytes = b
		}
		if c.Expect != "" {
			exp := filepath.Join(filepath.Dir(p), strings.ReplaceAll(c.Expect, "*", path.Base(stem)))
			b, err := os.ReadFile(exp)
			if err != nil {
				return nil, fmt.Errorf("corpus case %s: its expected output: %w", stem, err)
			}
			s := string(b)
			r.expect = &s
		}
		if err := add(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitter is a compiled [Split].
type splitter struct {
	begin, middle, end *regexp.Regexp
	rewrites           []*regexp.Regexp
	replace            []string
}

func compileSplit(s *Split) (*splitter, error) {
	sp := &splitter{}
	var err error
	for _, x := range []struct {
		name, re string
		dst      **regexp.Regexp
	}{{"begin", s.Begin, &sp.begin}, {"middle", s.Middle, &sp.middle}, {"end", s.End, &sp.end}} {
		if x.re == "" {
			if x.name != "middle" {
				return nil, fmt.Errorf("%s is empty", x.name)
			}
			continue
		}
		if *x.dst, err = regexp.Compile(x.re); err != nil {
			return nil, fmt.Errorf("%s: %w", x.name, err)
		}
	}
	for i, r := range s.Replace {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("replace[%d]: %w", i, err)
		}
		sp.rewrites = append(sp.rewrites, re)
		sp.replace = append(sp.replace, r.Replace)
	}
	return sp, nil
}

// split returns the inputs of the cases in file p, in order.
func (sp *splitter) split(p string) ([][]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	const (
		outside = iota
		input
		rest
	)
	state, opened := outside, 0
	var cur []byte
	for n, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		bare := string(bytes.TrimRight(line, "\r\n"))
		switch {
		case state == outside:
			if sp.begin.MatchString(bare) {
				state, opened, cur = input, n+1, []byte{}
			}
		case sp.end.MatchString(bare):
			s := string(cur)
			for i, re := range sp.rewrites {
				s = re.ReplaceAllString(s, sp.replace[i])
			}
			out = append(out, []byte(s))
			state = outside
		case state == input && sp.middle != nil && sp.middle.MatchString(bare):
			state = rest
		case state == input:
			cur = append(cur, line...)
		}
	}
	if state != outside {
		return nil, fmt.Errorf("%s:%d: a case opens here and never closes (no line matches %q)", filepath.Base(p), opened, sp.end)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no case: no line matches %q", filepath.Base(p), sp.begin)
	}
	return out, nil
}

// caseObs is what one case produced, by aspect.
type caseObs struct {
	stdout, stderr string
	exit           any
	files          map[string]string
	expect         *string
	// cut says the case was stopped at the module's deadline, not at its
	// own timeout: it observed nothing and the module stops there.
	cut bool
}

func (k *commandKind) observe(m *module) error {
	inputs, err := m.scratch("inputs")
	if err != nil {
		return err
	}
	cases, err := k.cases(m.data(), os.Getenv(behavioural.EnvOriginal), inputs)
	if err != nil {
		return err
	}
	if err := m.own(inputs); err != nil {
		return err
	}
	if k.Corpus != nil && k.Corpus.Stage != "" {
		if err := k.Corpus.checkStage(); err != nil {
			return err
		}
	}
	if k.Corpus != nil && k.Corpus.From == "original" && m.jail() != nil {
		// State A's files are the grader's copy: the submission reads the
		// inputs through a copy of its own (its folder's, with Stage).
		if err := m.stageOriginalInputs(cases, os.Getenv(behavioural.EnvOriginal), inputs, k.Corpus.Stage); err != nil {
			return err
		}
	}
	if k.norm, err = compileNormalisers(k.Normalise); err != nil {
		return err
	}
	build, err := m.restoreOrFail(k.Configuration)
	if err != nil || build == "" {
		return err
	}
	aspects := k.Compare
	if len(aspects) == 0 {
		aspects = []string{"stdout", "stderr", "exit", "files"}
	}
	// Every case gets a fresh folder of its own under cases/; the parent
	// is made once here, not per case.
	casesDir, err := m.scratch("cases")
	if err != nil {
		return err
	}
	k.casesDir = casesDir
	k.env = m.baseEnv()
	// The cases run in process inits kept for the module, one case at a
	// time in each ([procPool]).
	m.procs = &procPool{}
	defer m.procs.close()
	workers := 1
	if k.Parallel {
		workers = runtime.NumCPU()
	}
	results := make([]chan caseObs, len(cases))
	for i := range results {
		results[i] = make(chan caseObs, 1)
	}
	next := make(chan int)
	stop := make(chan struct{})
	for range workers {
		go func() {
			// A case gets the folder this worker's last case had, while
			// it is as that case got it ([caseFolder]).
			cf := &caseFolder{}
			for i := range next {
				results[i] <- k.run(m, build, i, cases[i], cf)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cases {
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	defer close(stop)
	for i, c := range cases {
		if !m.timeLeft() {
			return fmt.Errorf("%w after %d of %d case(s)", errDeadline, i, len(cases))
		}
		o := <-results[i]
		if o.cut {
			return fmt.Errorf("%w after %d of %d case(s)", errDeadline, i, len(cases))
		}
		for _, a := range aspects {
			id := c.ID + "/" + a
			switch a {
			case "stdout":
				if o.expect != nil {
					m.emit(id, o.stdout, *o.expect)
				} else {
					m.emit(id, o.stdout, nil)
				}
			case "stderr":
				m.emit(id, o.stderr, nil)
			case "exit":
				m.emit(id, o.exit, nil)
			case "files":
				if len(c.Produces) > 0 {
					m.emit(id, o.files, nil)
				}
			}
		}
	}
	return nil
}

// caseFolder is the folder a worker made for its last case, reused for
// the next case that needs no folder prepared (no files written in
// before; what it leaves is read back from its own path): every case
// still runs in a folder of its own, named by its number as before, and
// starts in it as in a new one: empty, the submission's, writable, no
// process of an earlier case left (the cases of one worker run one at a
// time, and every process of a case is gone before the next starts).
// Before each case the folder is checked to be just as it was made (the
// same folder, mode, owner and extended attributes, and empty) and then
// renamed to the case's number; one that is not stays where it is, as
// the folder of the case that used it, and a new one is made. A rename
// is about 10 µs where making a folder was 100–600 µs on this machine's
// ext4: most of a case's own cost.
type caseFolder struct {
	dir   string // where the folder is now: the last case's folder
	ready bool
	made  os.FileInfo
	xattr int
}

// prepare returns case own's folder: the worker's last one renamed, or
// a new one; harness says an error is the grader's fault.
func (cf *caseFolder) prepare(m *module, own string) (harness bool, err error) {
	if cf.ready && cf.unchanged() && os.Rename(cf.dir, own) == nil {
		cf.dir = own
		return false, nil
	}
	cf.ready = false
	if err := m.freshDir(own); err != nil {
		return false, err
	}
	if err := m.own(own); err != nil {
		return true, err
	}
	info, err := os.Lstat(own)
	if err != nil {
		return true, err
	}
	cf.dir, cf.made, cf.xattr, cf.ready = own, info, xattrSize(own), true
	return false, nil
}

func (cf *caseFolder) unchanged() bool {
	info, err := os.Lstat(cf.dir)
	if err != nil || !os.SameFile(info, cf.made) || info.Mode() != cf.made.Mode() || xattrSize(cf.dir) != cf.xattr {
		return false
	}
	a, aok := info.Sys().(*syscall.Stat_t)
	b, bok := cf.made.Sys().(*syscall.Stat_t)
	if !aok || !bok || a.Uid != b.Uid || a.Gid != b.Gid {
		return false
	}
	f, err := os.OpenFile(cf.dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// xattrSize is the size of the list of p's extended attributes' names
// (ACLs included), -1 when it cannot be read.
func xattrSize(p string) int {
	n, err := unix.Llistxattr(p, nil)
	if err != nil {
		return -1
	}
	return n
}

// run runs case i in a folder of its own: a new one when files are
// written in it first, else the one its worker's last case had, when
// that case left it as it was made ([caseFolder]; nil makes every
// folder new).
func (k *commandKind) run(m *module, build string, i int, c resolved, cf *caseFolder) caseObs {
	dir := filepath.Join(k.casesDir, fmt.Sprintf("%04d", i))
	o := caseObs{expect: c.expect}
	if cf != nil && len(c.Files) == 0 {
		if harness, err := cf.prepare(m, dir); err != nil {
			o.exit = "could not prepare: " + err.Error()
			if harness {
				m.harnessFault(err)
			}
			return o
		}
	} else {
		if err := m.freshDir(dir); err != nil {
			o.exit = "could not prepare: " + err.Error()
			return o
		}
		for p, content := range c.Files {
			full := filepath.Join(dir, p)
			_ = os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				o.exit = "could not prepare: " + err.Error()
				return o
			}
		}
		if err := m.own(dir); err != nil {
			o.exit = "could not prepare: " + err.Error()
			m.harnessFault(err)
			return o
		}
	}
	data := m.data()
	vals := map[string]string{"BUILD": build, "WORK": dir, "DATA": data}
	paths := [][2]string{{build, "<BUILD>"}, {dir, "<WORK>"}, {data, "<DATA>"}}
	timeout := DefaultCaseTimeout
	if c.TimeoutSec > 0 {
		timeout = time.Duration(c.TimeoutSec) * time.Second
	}
	// A case never runs past the module's deadline (half a second is kept
	// to write the result): one cut there observed nothing of its own.
	cut := false
	if !m.deadline.IsZero() {
		if left := time.Until(m.deadline) - 500*time.Millisecond; left < timeout {
			timeout, cut = max(left, time.Millisecond), true
		}
	}
	var stdin io.Reader
	if c.stdinBytes != nil {
		stdin = bytes.NewReader(c.stdinBytes)
	}
	argv := expandAll(c.Argv, vals)
	env := k.env
	if env == nil {
		env = m.baseEnv()
	}
	if len(c.Env) > 0 {
		env = caseEnv(env, c.Env, vals)
	}
	r := m.runProc(argv, dir, env, stdin, timeout)
	if cut && r.TimedOut {
		o.cut = true
		return o
	}
	o.stdout = k.norm.apply(text(r.Stdout), paths)
	o.stderr = k.norm.apply(text(r.Stderr), paths)
	// An output past the cap is observed as its size and digest, not
	// normalised: it fails its check unless truth holds the same.
	if r.StdoutOver != "" {
		o.stdout = r.StdoutOver
	}
	if r.StderrOver != "" {
		o.stderr = r.StderrOver
	}
	o.exit = statusText(r)
	if len(c.Produces) > 0 {
		o.files = make(map[string]string, len(c.Produces))
		for _, p := range slices.Sorted(slices.Values(c.Produces)) {
			o.files[p] = fileDigestUnder(dir, filepath.Join(dir, p))
		}
	}
	return o
}

// freshDir makes dir, empty: one mkdir when it does not exist (the usual
// case), else it is discarded first (a rerun in the same work folder).
func (m *module) freshDir(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		if err = m.discard(dir); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	}
	return err
}

// caseEnv is base without the contract names, then with extra applied
// (${NAME} expanded from vals; later names win).
func caseEnv(base []string, extra, vals map[string]string) []string {
	kv := make([]string, 0, len(extra))
	for _, k := range sortedKeys(extra) {
		kv = append(kv, k+"="+expand(extra[k], vals))
	}
	return behavioural.SubmissionEnv(base, kv...)
}

// checkStage refuses a Stage that is not State A's or does not hold Dir:
// the task's configuration is wrong.
func (c *Corpus) checkStage() error {
	if c.From != "original" {
		return fmt.Errorf("corpus %s: stage %q is for a corpus read from State A's tree (from: \"original\"); a task's own data is in the sandbox whole already", c.Dir, c.Stage)
	}
	stage, dir := path.Clean(c.Stage), path.Clean(c.Dir)
	if stage == "." || path.IsAbs(stage) || strings.HasPrefix(stage, "../") || stage == ".." {
		return fmt.Errorf("corpus %s: stage %q is not a folder inside State A's tree", c.Dir, c.Stage)
	}
	if dir != stage && !strings.HasPrefix(dir, stage+"/") {
		return fmt.Errorf("corpus %s: stage %q does not hold the corpus folder %q", c.Dir, c.Stage, c.Dir)
	}
	return nil
}

// stageOriginalInputs copies every argv input of cases that lies in State
// A's tree (original, the grader's copy) into inputs/original/, the
// submission's, and points the case at the copy. With stage (a folder of
// State A's tree), that folder is copied whole first, once, and left
// root's and read-only, so every case reads its input beside the files it
// imports and none can change what the next one reads; an input outside
// it is copied alone.
func (m *module) stageOriginalInputs(cases []resolved, original, inputs, stage string) error {
	if original == "" {
		return nil
	}
	prefix := filepath.Clean(original) + string(filepath.Separator)
	staged := ""
	if stage != "" {
		staged = filepath.Join(original, filepath.FromSlash(path.Clean(stage))) + string(filepath.Separator)
		dst := filepath.Join(inputs, "original", filepath.FromSlash(path.Clean(stage)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyTree(strings.TrimSuffix(staged, string(filepath.Separator)), dst, nil); err != nil {
			return fmt.Errorf("corpus stage %s: %w", stage, err)
		}
	}
	for i := range cases {
		for j, a := range cases[i].Argv {
			if !strings.HasPrefix(a, prefix) {
				continue
			}
			dst := filepath.Join(inputs, "original", strings.TrimPrefix(a, prefix))
			if staged != "" && strings.HasPrefix(a, staged) {
				cases[i].Argv[j] = dst
				continue
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := copyTree(a, dst, nil); err != nil {
				return err
			}
			cases[i].Argv[j] = dst
		}
	}
	if staged == "" {
		return m.own(inputs)
	}
	// The inputs stay root's, readable and not writable, the folders that
	// hold them included: a case can neither change a staged file nor move
	// the staged folder aside for the next case.
	if err := behavioural.Disown(inputs); err != nil {
		return err
	}
	return readOnlyTree(filepath.Join(inputs, "original"))
}

// readOnlyTree takes every write bit off dir and what is under it (links
// untouched, never followed) and lets everyone read it (folders enterable,
// executables kept executable).
func readOnlyTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()&0o555 | 0o444
		if d.IsDir() || mode&0o111 != 0 {
			mode |= 0o555
		}
		return os.Chmod(p, mode)
	})
}

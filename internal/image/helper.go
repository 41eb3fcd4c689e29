package image

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// HelperPackage is the package of srb's in-image helper, relative to
// srb's module root.
const HelperPackage = "./cmd/srb-helper"

// HelperSource says where srb's helper comes from: exactly one of File
// (a prebuilt binary, copied as it is), Repo (a checkout of srb's module)
// or FS (srb's module source as embedded in the srb binary,
// srb.HelperSource) is set.
//
// A helper built from source is pinned: the Go release is the one srb's
// go.mod names (its toolchain line, else its go directive), downloaded as
// the golang.org/toolchain module like the images' Go toolchains (so the
// host's Go version does not matter), and the build is CGO_ENABLED=0,
// -trimpath, -buildvcs=false, -ldflags "-s -w -buildid=", for
// GOOS=linux and this machine's GOARCH. The same srb commit therefore
// gives the same helper bytes, and the same lockfile digests, whether it
// is built from a checkout or from an installed srb.
type HelperSource struct {
	File string
	Repo string
	FS   fs.FS
}

// helperSourceFor picks the helper's source for opts: --helper, else the
// checkout opts.RepoRoot or one found from the working directory or the
// task folder, else the embedded source.
func helperSourceFor(opts PrepareOptions, taskDir string) HelperSource {
	if opts.Helper != "" {
		return HelperSource{File: opts.Helper}
	}
	repo := opts.RepoRoot
	if repo == "" {
		if repo = findRepoRoot(""); repo == "" {
			repo = findRepoRoot(taskDir)
		}
	}
	if repo != "" {
		if fi, err := os.Stat(filepath.Join(repo, HelperPackage)); err == nil && fi.IsDir() {
			return HelperSource{Repo: repo}
		}
	}
	if opts.Source != nil {
		return HelperSource{FS: opts.Source}
	}
	return HelperSource{FS: srb.HelperSource}
}

// prepareHelper makes srb's helper from src as srb-helper (mode 0755,
// time BaseEpoch) in a content-addressed folder under root/staged/helper
// (see [stageContent]), and returns it as an input whose digest is the
// tree digest of that folder. The build itself is serialised by a lock
// on root/helper, so two srb processes do not build it at once.
func prepareHelper(ctx context.Context, src HelperSource, root string, logf func(string, ...any)) (*Input, error) {
	base := filepath.Join(root, "helper")
	unlock, err := lockDir(base)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var about string
	dir, d, err := stageContent(filepath.Join(root, "staged", "helper"), func(tmp string) error {
		bin := filepath.Join(tmp, "tree")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		out := filepath.Join(bin, "srb-helper")
		switch {
		case src.File != "":
			if err := CheckStatic(src.File); err != nil {
				return fmt.Errorf("helper: %w", err)
			}
			if _, err := copytree.Copy(src.File, out, copytree.Options{Modes: copytree.Normalise}); err != nil {
				return fmt.Errorf("helper: %w", err)
			}
			if err := os.Chmod(out, 0o755); err != nil { // a program, whatever its bits were
				return fmt.Errorf("helper: %w", err)
			}
			about = "srb's helper, given as " + src.File
		case src.Repo != "":
			v, err := helperGo(os.DirFS(src.Repo))
			if err != nil {
				return err
			}
			sum, err := repoDigest(src.Repo)
			if err != nil {
				return err
			}
			if err := cachedBuild(base, helperBuildKey(sum, v), out, logf, func() error {
				return buildHelper(ctx, src.Repo, v, root, out, logf)
			}); err != nil {
				return err
			}
			about = fmt.Sprintf("srb's helper, %s built with go%s from srb's source tree", HelperPackage, v)
		default:
			v, err := helperGo(src.FS)
			if err != nil {
				return err
			}
			sum, err := sourceDigest(src.FS)
			if err != nil {
				return err
			}
			if err := cachedBuild(base, helperBuildKey(sum, v), out, logf, func() error {
				dir := filepath.Join(base, "src", shortDigest(sum))
				if err := extractSource(src.FS, dir); err != nil {
					return err
				}
				return buildHelper(ctx, dir, v, root, out, logf)
			}); err != nil {
				return err
			}
			about = fmt.Sprintf("srb's helper, %s built with go%s from the source embedded in srb", HelperPackage, v)
		}
		if err := os.Chmod(out, 0o755); err != nil {
			return err
		}
		return setTimes(bin, BaseEpoch)
	})
	if err != nil {
		return nil, err
	}
	return &Input{Name: "helper", Dir: dir, Digest: d, About: about}, nil
}

// helperGo is the Go release srb's go.mod in src pins: its toolchain
// line ("toolchain go1.26.8" → "1.26.8"), else its go directive, which
// must then name a patch release.
func helperGo(src fs.FS) (string, error) {
	b, err := fs.ReadFile(src, "go.mod")
	if err != nil {
		return "", fmt.Errorf("helper: srb's go.mod: %w", err)
	}
	var goLine, toolchain string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "go" {
			goLine = f[1]
		}
		if len(f) == 2 && f[0] == "toolchain" {
			toolchain = strings.TrimPrefix(f[1], "go")
		}
	}
	v := toolchain
	if v == "" {
		v = goLine
	}
	if strings.Count(v, ".") != 2 {
		return "", fmt.Errorf("helper: srb's go.mod pins no Go patch release (go %q, toolchain %q): add a toolchain line", goLine, toolchain)
	}
	return v, nil
}

// buildHelper builds HelperPackage in module dir with the golang.org/
// toolchain release v (made under root/toolchains like an image's Go)
// into out, pinned as [HelperSource] says.
func buildHelper(ctx context.Context, dir, v, root, out string, logf func(string, ...any)) error {
	g, err := prepareGo(ctx, v, root, logf)
	if err != nil {
		return fmt.Errorf("helper: %w", err)
	}
	goroot := filepath.Join(g.Dir, "go")
	logf("building srb's helper (%s) with go%s", HelperPackage, v)
	args := append([]string{"build"}, helperBuildFlags...)
	cmd := exec.CommandContext(ctx, filepath.Join(goroot, "bin", "go"), append(args, "-o", out, HelperPackage)...)
	cmd.Dir = dir
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOROOT", "GOFLAGS", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "CGO_ENABLED", "GOTOOLCHAIN", "GOWORK", "GOFIPS140", "GODEBUG":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(append(env, "GOROOT="+goroot), helperBuildEnv()...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("helper: go%s build %s in %s: %w\n%s", v, HelperPackage, dir, err, b)
	}
	return nil
}

// helperBuildFlags are the go build flags of the helper (before -o).
var helperBuildFlags = []string{"-trimpath", "-buildvcs=false", "-mod=readonly", "-ldflags=-s -w -buildid="}

// helperBuildEnv is the pinned part of the helper build's environment.
func helperBuildEnv() []string {
	return []string{"GOFLAGS=", "GOOS=linux", "GOARCH=" + runtime.GOARCH, "GOAMD64=v1", "GOARM64=v8.0",
		"GOEXPERIMENT=", "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOWORK=off", "GOFIPS140=off"}
}

// helperBuildKey names one helper build: the hex sha256 of the source
// digest, the Go release, the build flags and the pinned environment.
// Two builds with the same key give the same bytes ([HelperSource]), so
// a binary built under a key is reused instead of building it again.
func helperBuildKey(sourceDigest, goVersion string) string {
	h := sha256.New()
	fmt.Fprintf(h, "srb-helper build 1\nsource %s\ngo %s\nflags %q\nenv %q\n", sourceDigest, goVersion, helperBuildFlags, helperBuildEnv())
	return hex.EncodeToString(h.Sum(nil))
}

// cachedBuild puts the helper built under key at out: a copy of
// base/built/<key>/srb-helper when an earlier build left it there (and it
// is still a static executable for this machine), else build's output,
// which is then kept there (through a temporary file and a rename) for
// the next no-op srb build. Errors are build's, or the copy's.
func cachedBuild(base, key, out string, logf func(string, ...any), build func() error) error {
	kept := filepath.Join(base, "built", key, "srb-helper")
	if CheckStatic(kept) == nil {
		if _, err := copytree.Copy(kept, out, copytree.Options{Modes: copytree.Normalise}); err == nil {
			logf("srb's helper: reusing the build %.12s (same source, Go release and flags)", key)
			return nil
		}
		os.Remove(out)
	}
	if err := build(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		return nil // not kept: the next build builds again
	}
	tmp := kept + ".tmp"
	os.Remove(tmp)
	if _, err := copytree.Copy(out, tmp, copytree.Options{Modes: copytree.Normalise}); err != nil {
		os.Remove(tmp)
		return nil
	}
	if os.Chmod(tmp, 0o755) != nil || os.Rename(tmp, kept) != nil {
		os.Remove(tmp)
	}
	return nil
}

// repoDigest is the digest of a checkout's possible helper inputs, as
// [sourceDigest] computes it over every file [repoHelperFile] keeps: more
// than the helper reads (any Go package of srb, not only the ones it
// imports), so that no change to what it does read is missed.
func repoDigest(repo string) (string, error) {
	return sourceDigest(repoFS{os.DirFS(repo)})
}

// repoFS is a checkout seen as the files that can be helper inputs:
// everything but version control, tests, test data, tasks, docs and runs.
type repoFS struct{ fs.FS }

// ReadDir hides what repoFS leaves out.
func (r repoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(r.FS, name)
	if err != nil {
		return nil, err
	}
	out := ents[:0]
	for _, e := range ents {
		if e.IsDir() {
			switch e.Name() {
			case ".git", "testdata", "tasks", "runs", "docs", "node_modules":
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// helperFile reports whether name (slash-separated, relative to the
// module root) is part of the helper's build: go.mod, go.sum, and every
// file in the embedded source but tests.
func helperFile(name string) bool {
	return !strings.HasSuffix(name, "_test.go")
}

// sourceDigest is the sha256 of src's build files, sorted by path, each
// as "<path>\x00<length>\x00<content>".
func sourceDigest(src fs.FS) (string, error) {
	var names []string
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && helperFile(p) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("helper source: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(src, n)
		if err != nil {
			return "", fmt.Errorf("helper source: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// extractSource writes src's build files under dir (once: a folder that
// exists is complete, since it is renamed into place).
func extractSource(src fs.FS, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !helperFile(p) {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("helper source: %w", err)
	}
	return os.Rename(tmp, dir)
}

// CheckStatic fails unless file is a Linux ELF executable for this
// machine's architecture with no program interpreter (statically linked):
// a stage image need not have the host's C library.
func CheckStatic(file string) error {
	f, err := elf.Open(file)
	if err != nil {
		return fmt.Errorf("%s: not an ELF executable: %w", file, err)
	}
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	if want != 0 && f.Machine != want {
		return fmt.Errorf("%s: built for %s, want %s (GOARCH=%s)", file, f.Machine, want, runtime.GOARCH)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: dynamically linked (it names a program interpreter); build it with CGO_ENABLED=0", file)
		}
	}
	return nil
}

// HostHelper is the argv prefix that runs the helper on a host run (srb
// behavioural, freeze and ladder --host): flag, a static srb-helper made
// absolute, when it is set; else this program itself (os.Args[0], looked
// up on PATH when it has no slash) through its hidden "helper" command.
// The error is the lookup's, or the path's that cannot be made absolute.
func HostHelper(flag string) ([]string, error) {
	if flag != "" {
		p, err := filepath.Abs(flag)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	}
	// os.Args[0] rather than os.Executable: a multi-call binary (the test
	// binary acting as srb) is selected by the name it is run under.
	self := os.Args[0]
	if !strings.Contains(self, "/") {
		p, err := exec.LookPath(self)
		if err != nil {
			return nil, fmt.Errorf("the helper: %w", err)
		}
		self = p
	}
	abs, err := filepath.Abs(self)
	if err != nil {
		return nil, err
	}
	return []string{abs, "helper"}, nil
}

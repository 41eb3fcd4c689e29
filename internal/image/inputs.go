package image

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/internal/notice"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// Input is one host-side input of the image builds: a folder BuildKit
// reads as a local source, and the digest that identifies its content.
type Input struct {
	Name   string // the local source's name, e.g. "base", "go1.22.5"
	Dir    string // the folder; "" in daemon-free tests
	Digest string // "sha256:<hex>" (a tree digest) or the module's "h1:" sum
	About  string // what it is, in words, for the lockfile
	// Images are, for an input served as OCI images (a Go toolchain),
	// the manifest digest of each image made of it, by where its tree
	// goes in an image ("/usr/local/go").
	Images map[string]string
}

// Inputs are everything the four images of a task are made from besides
// the declaration itself.
type Inputs struct {
	Base Input
	// Go maps a Go version to its toolchain, unpacked from the
	// golang.org/toolchain module and served as OCI images from the
	// content store folder ToolchainStore.
	Go             map[string]Input
	ToolchainStore string
	// StateA is the agent's starting tree: State A as a git repository
	// with one commit (Digest is State A's canonical tar digest).
	StateA      Input
	StartCommit string
	// Assets are the task's modules/, data/ and truth/ folders, for the
	// behavioural and verification images; nil when it has none.
	Assets *Input
	// Helper is srb's in-image helper, a static binary built from
	// ./cmd/srb-helper (or given with PrepareOptions.Helper); nil only in
	// daemon-free tests.
	Helper *Input
	// Notice is the task's NOTICE entry, rendered.
	Notice []byte
	// Files maps a stage to the small tree srb adds to its image: the
	// mount points and the NOTICE entry, staged with every time at
	// SOURCE_DATE_EPOCH (folders made inside BuildKit would carry the
	// time of the build).
	Files map[string]Input
	// TaskCommit is the last commit of the task folder, with "-dirty"
	// when it has changes; "uncommitted" outside a git checkout.
	TaskCommit string
	// NPMConfig is the host's npm configuration and CA bundle, mounted
	// read-only into the npm install step (NPMConfigMount); nil when no
	// stage declares npm packages. It is not part of any image, nor of
	// the lockfile.
	NPMConfig *Input
}

// PrepareOptions say where the inputs are made and found.
type PrepareOptions struct {
	// Root holds the made inputs: base/, toolchains/, state-a/, assets/,
	// helper/ (srb build: <cache>/images).
	Root string
	// Cache is the State A cache.
	Cache *source.Cache
	// Helper is a prebuilt srb-helper to copy into the images as it is
	// (srb build --helper); it must be a static Linux executable. ""
	// builds the helper from source (see [HelperSource]).
	Helper string
	// RepoRoot is srb's own source tree, where ./cmd/srb-helper is built
	// from; "" looks for it from the working directory, then from the
	// task folder, and without one the helper is built from the source
	// embedded in srb (srb.HelperSource).
	RepoRoot string
	// Source overrides the embedded source (tests); nil is srb.HelperSource.
	Source fs.FS
	// Recheck digests made inputs again instead of trusting the digests
	// recorded beside them (srb build --verify).
	Recheck bool
	// Log reports slow steps; nil is silent.
	Log func(format string, args ...any)
}

// Prepare makes the inputs of t's images under opts.Root: each is made
// once, with normalised modes and times, and found again by its key.
func Prepare(ctx context.Context, t *task.Task, opts PrepareOptions) (*Inputs, error) {
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	in := &Inputs{Go: map[string]Input{}}
	var err error
	switch t.Images.Base.Kind {
	case "debootstrap":
		if in.Base, err = prepareBase(ctx, t.Images.Base, opts.Root, opts.Recheck, logf); err != nil {
			return nil, err
		}
	case "registry":
		in.Base = Input{Name: "base", Digest: digestOf(t.Images.Base.Ref), About: "registry image " + t.Images.Base.Ref}
	}
	in.ToolchainStore = filepath.Join(opts.Root, "toolchains", "oci")
	for _, s := range task.StageNames {
		for i, v := range t.Images.Stage(s).Go {
			g, ok := in.Go[v]
			if !ok {
				if g, err = prepareGo(ctx, v, opts.Root, logf); err != nil {
					return nil, err
				}
				g.Images = map[string]string{}
			}
			dest := goDir(v, i == 0)
			if _, ok := g.Images[dest]; !ok {
				if g.Images[dest], err = goImage(g, dest, in.ToolchainStore); err != nil {
					return nil, err
				}
			}
			in.Go[v] = g
		}
	}
	e, err := opts.Cache.Materialise(ctx, t.StateA, t.Dir, nil)
	if err != nil {
		return nil, fmt.Errorf("state A: %w", err)
	}
	if in.StateA, in.StartCommit, err = prepareStateA(ctx, e, opts.Root); err != nil {
		return nil, err
	}
	entry, err := notice.EntryFor(t, e.Archive)
	if err != nil {
		return nil, fmt.Errorf("notice: %w", err)
	}
	in.Notice = notice.Render([]notice.Entry{entry})
	if in.Files, err = prepareFiles(t, in.Notice, opts.Root); err != nil {
		return nil, err
	}
	if in.Assets, err = prepareAssets(t, opts.Root); err != nil {
		return nil, err
	}
	if in.Helper, err = prepareHelper(ctx, helperSourceFor(opts, t.Dir), opts.Root, logf); err != nil {
		return nil, err
	}
	if needsNPM(t) {
		if in.NPMConfig, err = prepareNPMConfig(DiscoverNPM(ctx), opts.Root); err != nil {
			return nil, err
		}
	}
	in.TaskCommit = taskCommit(ctx, t.Dir)
	return in, nil
}

func digestOf(ref string) string {
	if _, d, ok := strings.Cut(ref, "@"); ok {
		return d
	}
	return ref
}

// goModule is the golang.org/toolchain module version of Go v for this
// machine's platform.
func goModule(v string) string {
	return fmt.Sprintf("golang.org/toolchain@v0.0.1-go%s.%s-%s", v, runtime.GOOS, runtime.GOARCH)
}

// prepareGo downloads Go v as a golang.org/toolchain module through the
// go command (so GOPROXY and the checksum database apply) and unpacks it
// under root/toolchains/go<v>/go with normalised modes and times.
func prepareGo(ctx context.Context, v, root string, logf func(string, ...any)) (Input, error) {
	dir := filepath.Join(root, "toolchains", "go"+v)
	name := "go" + v
	about := goModule(v)
	unlock, err := lockDir(dir)
	if err != nil {
		return Input{}, err
	}
	defer unlock()
	if d, err := os.ReadFile(filepath.Join(dir, "digest")); err == nil {
		return Input{Name: name, Dir: dir, Digest: strings.TrimSpace(string(d)), About: about}, nil
	}
	logf("downloading %s", about)
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", about)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOFLAGS=")
	out, err := cmd.Output()
	var dl struct{ Zip, Sum, Error string }
	_ = json.Unmarshal(out, &dl)
	if err != nil || dl.Error != "" || dl.Zip == "" {
		msg := dl.Error
		if msg == "" && err != nil {
			msg = err.Error()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				msg += ": " + strings.TrimSpace(string(ee.Stderr))
			}
		}
		return Input{}, fmt.Errorf("go %s: download %s: %s", v, about, msg)
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := unzipToolchain(dl.Zip, strings.TrimPrefix(about, "golang.org/toolchain@")+"/", filepath.Join(tmp, "go")); err != nil {
		return Input{}, fmt.Errorf("go %s: %w", v, err)
	}
	if err := setTimes(tmp, BaseEpoch); err != nil {
		return Input{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "digest"), []byte(dl.Sum+"\n"), 0o644); err != nil {
		return Input{}, err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return Input{}, fmt.Errorf("go %s: %w", v, err)
	}
	// The digest file sits beside go/; only go/ is copied into images.
	return Input{Name: name, Dir: dir, Digest: dl.Sum, About: about}, nil
}

// goImage makes (once) the one-layer OCI image of toolchain g with its
// tree at dest, in the content store folder store, and returns its
// manifest digest.
func goImage(g Input, dest, store string) (string, error) {
	rec := filepath.Join(g.Dir, "oci"+strings.ReplaceAll(dest, "/", "-"))
	if b, err := os.ReadFile(rec); err == nil {
		if m := strings.TrimSpace(string(b)); m != "" {
			if _, err := os.Stat(filepath.Join(store, "blobs", "sha256", strings.TrimPrefix(m, "sha256:"))); err == nil {
				return m, nil
			}
		}
	}
	m, err := writeOCIImage(filepath.Join(g.Dir, "go"), strings.TrimPrefix(dest, "/")+"/", store)
	if err != nil {
		return "", fmt.Errorf("%s: %w", g.Name, err)
	}
	return m, os.WriteFile(rec, []byte(m+"\n"), 0o644)
}

// unzipToolchain unpacks the module zip's entries under prefix into dst:
// files under bin/ and pkg/tool/ (and any with an execute bit) 0755,
// everything else 0644, folders 0755.
func unzipToolchain(zipPath, prefix, dst string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("unzip: %w", err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, "golang.org/toolchain@"+prefix)
		if !ok || rel == "" || strings.HasSuffix(rel, "/") {
			continue
		}
		if !fs.ValidPath(rel) {
			return fmt.Errorf("unzip: unsafe path %q", f.Name)
		}
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") || strings.HasPrefix(rel, "pkg/tool/") || f.Mode()&0o111 != 0 {
			mode = 0o755
		}
		out := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
		if err != nil {
			r.Close()
			return err
		}
		_, err = io.Copy(w, r)
		r.Close()
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("unzip %s: %w", rel, err)
		}
		if err := os.Chmod(out, mode); err != nil {
			return err
		}
	}
	return nil
}

// prepareStateA makes the agent's starting tree of State A e under
// root/state-a/<digest>/repo: the one-commit repository of
// source.StartingTree with its index rewritten without stat data and
// git's sample hooks removed, so the folder depends on the content alone.
func prepareStateA(ctx context.Context, e *source.Entry, root string) (Input, string, error) {
	dir := filepath.Join(root, "state-a", e.Digest)
	about := "state A " + e.Source + " as a git repository with one commit"
	in := Input{Name: "state-a", Dir: dir, Digest: "sha256:" + e.Digest, About: about}
	unlock, err := lockDir(dir)
	if err != nil {
		return Input{}, "", err
	}
	defer unlock()
	if b, err := os.ReadFile(filepath.Join(dir, "start-commit")); err == nil {
		return in, strings.TrimSpace(string(b)), nil
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo")
	id, err := source.StartingTree(ctx, e.Archive, repo, "", e.Limits)
	if err != nil {
		return Input{}, "", err
	}
	hooks, _ := filepath.Glob(filepath.Join(repo, ".git", "hooks", "*.sample"))
	for _, h := range append(hooks, filepath.Join(repo, ".git", "description"), filepath.Join(repo, ".git", "COMMIT_EDITMSG"), filepath.Join(repo, ".git", "index")) {
		os.Remove(h)
	}
	// An index read from the tree carries no stat data (times, inodes):
	// git refreshes it on first use inside the image.
	cmd := exec.CommandContext(ctx, "git", "read-tree", "HEAD")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Input{}, "", fmt.Errorf("state A: git read-tree: %w: %s", err, out)
	}
	norm := filepath.Join(tmp, "norm")
	if err := copyNormalised(repo, norm, nil); err != nil {
		return Input{}, "", fmt.Errorf("state A: %w", err)
	}
	os.RemoveAll(repo)
	if err := os.Rename(norm, repo); err != nil {
		return Input{}, "", err
	}
	if err := setTimes(repo, BaseEpoch); err != nil {
		return Input{}, "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, "start-commit"), []byte(id+"\n"), 0o644); err != nil {
		return Input{}, "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return Input{}, "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return Input{}, "", err
	}
	return in, id, nil
}

// MountPoints are the empty folders each stage image has for the trees
// a stage mounts.
func MountPoints(t *task.Task, stage string) []string {
	switch stage {
	case "agent":
		return nil
	case "audit":
		return []string{OriginalMount, AuditRepoMount}
	}
	return []string{OriginalMount, t.Artifacts.Path}
}

// prepareFiles stages, per stage, its mount points and NOTICE entry as
// a content-addressed folder under root/staged/files-<task id>-<stage>
// (see [stageContent]).
func prepareFiles(t *task.Task, noticeText []byte, root string) (map[string]Input, error) {
	epoch := time.Unix(t.Images.SourceDateEpoch, 0).UTC()
	out := map[string]Input{}
	for _, s := range task.StageNames {
		dir, d, err := stageContent(filepath.Join(root, "staged", "files-"+t.ID+"-"+s), func(tmp string) error {
			raw := filepath.Join(tmp, "raw")
			for _, m := range MountPoints(t, s) {
				if err := os.MkdirAll(filepath.Join(raw, filepath.FromSlash(m)), 0o755); err != nil {
					return err
				}
			}
			np := filepath.Join(raw, filepath.FromSlash(NoticePath))
			if err := os.MkdirAll(filepath.Dir(np), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(np, noticeText, 0o644); err != nil {
				return err
			}
			tree := filepath.Join(tmp, "tree")
			if err := copyNormalised(raw, tree, nil); err != nil {
				return err
			}
			return setTimes(tree, epoch)
		})
		if err != nil {
			return nil, fmt.Errorf("files of the %s image: %w", s, err)
		}
		out[s] = Input{Name: "files-" + s, Dir: dir, Digest: d, About: "the " + s + " image's mount points and NOTICE entry"}
	}
	return out, nil
}

// AssetDirs are the task folders copied into the behavioural and
// verification images, under /tests/<stage>/.
var AssetDirs = task.AssetDirs

// prepareAssets stages the task's asset folders, normalised, as a
// content-addressed folder under root/staged/assets-<task id> (see
// [stageContent]), or returns nil when the task has none of them.
func prepareAssets(t *task.Task, root string) (*Input, error) {
	n := 0
	dir, d, err := stageContent(filepath.Join(root, "staged", "assets-"+t.ID), func(tmp string) error {
		tree := filepath.Join(tmp, "tree")
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return err
		}
		for _, a := range AssetDirs {
			src := filepath.Join(t.Dir, a)
			fi, err := os.Lstat(src)
			if err != nil {
				continue
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(src)
				return &TaskFolderError{Path: src, Msg: fmt.Sprintf("is a link (to %s): the images would hold the link, not a folder; make %s/ a folder of the task", target, a)}
			}
			if !fi.IsDir() {
				continue
			}
			if err := checkAssetLinks(src, a); err != nil {
				return err
			}
			if err := copyNormalised(src, filepath.Join(tree, a), nil); err != nil {
				return err
			}
			n++
		}
		return setTimes(tree, BaseEpoch)
	})
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	return &Input{Name: "assets", Dir: dir, Digest: d, About: "the task's " + strings.Join(AssetDirs, ", ") + " folders"}, nil
}

// TaskFolderError is an asset of the task folder that cannot go into
// its images as it is: the task's own configuration is wrong (srb build
// exits 2). Path is the file in the task folder.
type TaskFolderError struct {
	Path string
	Msg  string
}

// Error is "<path>: <message>".
func (e *TaskFolderError) Error() string { return e.Path + ": " + e.Msg }

// checkAssetLinks refuses a symbolic link under the asset folder src (the
// task's modules/, data/ or truth/, named name) that leads out of it,
// absolute links included, resolved as the kernel would (through other
// links, by [os.Root]): the images hold the folder alone, under
// /tests/<stage>/<name>, so such a link would lead somewhere else there,
// or nowhere, while it works on the host. A link to nothing inside the
// folder, or a loop, is kept: it is the same in the images.
func checkAssetLinks(src, name string) error {
	return task.LinksLeaving(src, func(p, target string) error {
		return &TaskFolderError{Path: p, Msg: fmt.Sprintf("is a link to %s, which leads out of %s/: the images hold %s/ alone, so it would not lead there; copy what it names into the task", target, name, name)}
	})
}

// findRepoRoot walks up from dir ("" for the working directory) to
// srb's module root, or returns "".
func findRepoRoot(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/swe-refactor-bench/srb\n") {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// generatedPaths are the task folder's files srb writes itself: the
// lockfile (srb build) and the ground truth (srb freeze). The task commit
// ignores them, so committing a lockfile written from a clean task folder
// is a fixed point: the next build labels its images with the same commit
// and reproduces the lock. Truth still reaches the images as an asset, so
// a re-frozen truth moves the digests of the images that carry it.
var generatedPaths = []string{":(exclude)" + LockName, ":(exclude)truth"}

// TaskCommit is the last commit touching the task folder dir (its
// generated images.lock and truth/ aside), with "-dirty" when dir has
// uncommitted changes outside them, or "uncommitted" when dir is not in
// a git checkout: the commit images are labelled with, and the one truth
// and stage results record in their provenance.
func TaskCommit(ctx context.Context, dir string) string { return taskCommit(ctx, dir) }

// taskCommit is the last commit touching dir (its generated files aside),
// "-dirty" when dir has uncommitted changes outside them, or "uncommitted"
// when dir is not in a git checkout.
func taskCommit(ctx context.Context, dir string) string {
	spec := append([]string{"--", "."}, generatedPaths...)
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "log", "-1", "--format=%H"}, spec...)...).Output()
	id := strings.TrimSpace(string(out))
	if err != nil || id == "" {
		return "uncommitted"
	}
	st, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "status", "--porcelain"}, spec...)...).Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		id += "-dirty"
	}
	return id
}

// shortDigest is the first 12 hex digits of a digest, for names.
func shortDigest(d string) string {
	_, h, ok := strings.Cut(d, ":")
	if !ok {
		h = d
	}
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// stageContent makes an input folder that is never rewritten while a
// build may be reading it: fill writes the content into tmp/tree of a
// fresh temporary folder under parent, whose [TreeDigest] names it, and
// tmp/tree is renamed to parent/<hex digest> unless a folder of that
// digest is already there (then it is the same content and is kept).
// Two srb processes sharing one cache therefore never pull an input out
// from under the other's BuildKit solve, whatever they stage at once.
// It returns the folder and its digest ("sha256:<hex>").
//
// Staged folders are not removed: each differs from the others in
// content, and they are small (a task's files and assets, srb's helper).
//
// The temporary folder is locked (flock) while it is in use, so one that
// a crashed srb left behind is found and removed by a later call: see
// [sweepStaleTemps].
func stageContent(parent string, fill func(tmp string) error) (string, string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", "", err
	}
	sweepStaleTemps(parent, time.Now())
	tmp, err := os.MkdirTemp(parent, tempPrefix)
	if err != nil {
		return "", "", err
	}
	lock, err := os.Open(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return "", "", err
	}
	defer lock.Close() // after the removal below: closing releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("lock %s: %w", tmp, err)
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return "", "", err
	}
	tree := filepath.Join(tmp, "tree")
	// Modes are part of the digest; the umask is not.
	if err := normaliseModes(tree); err != nil {
		return "", "", err
	}
	d, err := TreeDigest(tree)
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(parent, strings.TrimPrefix(d, "sha256:"))
	if _, err := os.Stat(dir); err == nil {
		return dir, d, nil
	}
	if err := os.Rename(tree, dir); err != nil {
		// Another process staged the same content first.
		if _, serr := os.Stat(dir); serr == nil {
			return dir, d, nil
		}
		return "", "", err
	}
	return dir, d, nil
}

// tempPrefix begins the names of [stageContent]'s temporary folders.
const tempPrefix = ".tmp-"

// staleAfter is how long a temporary folder of [stageContent] must have
// been left unchanged before [sweepStaleTemps] may remove it. Its lock
// alone says whether it is in use; the age only spares a folder made a
// moment ago whose maker has not locked it yet.
const staleAfter = time.Hour

// sweepStaleTemps removes the temporary folders under parent that a
// stageContent which ended without cleaning up (a crashed or killed srb)
// left behind: those older than staleAfter at now whose lock can be
// taken, so never one another process is filling. It is best effort: a
// folder it cannot remove is left for the next call.
func sweepStaleTemps(parent string, now time.Time) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < staleAfter {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(p)
		}
		f.Close()
	}
}

// normaliseModes sets the modes under dir as [copyNormalised] does
// (copytree.NormalMode): folders 0755, regular files 0755 when any execute
// bit is set and 0644 otherwise; times are left as they are.
func normaliseModes(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() || info.Mode().IsRegular() {
			return os.Chmod(p, copytree.NormalMode(info.Mode()))
		}
		return nil
	})
}

// lockDir takes an exclusive lock on path+".lock", so two srb processes
// making the same input at once take turns; the returned func releases it.
func lockDir(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

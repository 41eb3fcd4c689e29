package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/schema"
)

// LockName is the lockfile's name inside a task folder.
const LockName = "images.lock"

// LockSchema identifies the lockfile format.
const LockSchema = "srb.images-lock/1"

// Lock is a task's image lockfile (tasks/<id>/images.lock): per image its
// digest and the digests of every input it was made from. srb build
// writes it; srb build --verify rebuilds with no cache and compares.
type Lock struct {
	Schema string `json:"schema"`
	Task   string `json:"task"`
	// TaskCommit is the last commit of the task folder when it was built.
	TaskCommit      string `json:"task_commit"`
	SourceDateEpoch int64  `json:"source_date_epoch"`
	// BuildKit is the buildkitd version that built the images; layer
	// compression belongs to it, so digests are compared across the same
	// version.
	BuildKit string `json:"buildkit"`
	// Inputs describes every input by name: what it is and its digest.
	Inputs map[string]LockInput `json:"inputs"`
	// Images maps a stage to its image.
	Images map[string]LockImage `json:"images"`
}

// LockInput is one input: what it is, and its digest.
type LockInput struct {
	About  string `json:"about"`
	Digest string `json:"digest"`
}

// LockImage is one built image.
type LockImage struct {
	// Digest is the image manifest's digest.
	Digest string `json:"digest"`
	// Config is the digest of the image's config, which is the id Docker
	// gives the image when it is loaded (srb behavioural and srb freeze
	// find the loaded image by it); absent in lockfiles written before it.
	Config string `json:"config,omitempty"`
	// LLB is the digest of the compiled graph's head vertex.
	LLB string `json:"llb"`
	// Inputs maps each input the image was made from to its digest; the
	// "packages" input is the sha256 of the installed Debian packages'
	// sorted name=version list, as the probes read it (and, for an image
	// with an npm layer, its npm tree's lines after them).
	Inputs map[string]string `json:"inputs"`
	// NPM is the npm tree the image's npm layer installed, every package
	// nested dependencies included, sorted by path; absent for an image
	// without npm packages and in lockfiles written before srb recorded
	// it. npm install --global resolves transitive versions when it runs,
	// so this is what pins them: srb build --verify names each package
	// whose version or files moved ([NPMMoved]).
	NPM []NPMPackage `json:"npm,omitempty"`
	// IdentityRun is what srb build's identity run said of this image
	// (the behavioural image only); absent in lockfiles written before
	// srb build ran it.
	IdentityRun *IdentityRun `json:"identity_run,omitempty"`
}

// NPMPackage is one package of an image's npm tree as the npm tree probe
// read it in the built image (npmTreeJS).
type NPMPackage struct {
	// Name is the package's name ("semver", "@scope/name"), from its
	// place in the tree.
	Name string `json:"name"`
	// Version is its package.json's version ("?" when it has none); ""
	// for a link.
	Version string `json:"version,omitempty"`
	// Path is where it is under the global node_modules folder's parent,
	// "node_modules/a/node_modules/b" for a nested dependency.
	Path string `json:"path"`
	// Integrity is "sha256:<hex>" over the package's own files (each
	// relative path, NUL, size, NUL, content, in path order; its nested
	// node_modules left to their own entries). It is the installed
	// content's digest, not the registry tarball's: a global install
	// keeps no lockfile, so the tarball's integrity is not in the image.
	Integrity string `json:"integrity,omitempty"`
	// Link is the target when a symbolic link stands in place of the
	// package (npm link); Version and Integrity are then "".
	Link string `json:"link,omitempty"`
}

// ParseNPMTree reads the npm tree lines of a probed packages list
// ("npm:<path>=<version> sha256:<hex>" or "npm:<path>=link:<target>",
// the Debian "name=version" lines skipped) into packages sorted by path;
// nil when the list has none. A line it cannot read is an error naming
// it.
func ParseNPMTree(packages string) ([]NPMPackage, error) {
	var out []NPMPackage
	for _, l := range strings.Split(packages, "\n") {
		rest, ok := strings.CutPrefix(l, "npm:")
		if !ok {
			continue
		}
		path, val, ok := strings.Cut(rest, "=")
		i := strings.LastIndex(path, "node_modules/")
		if !ok || i < 0 || len(path) == i+len("node_modules/") {
			return nil, fmt.Errorf("npm tree: line %q is not npm:<path>=<version> <digest>", l)
		}
		p := NPMPackage{Name: path[i+len("node_modules/"):], Path: path}
		if target, ok := strings.CutPrefix(val, "link:"); ok {
			p.Link = target
		} else {
			v, d, ok := strings.Cut(val, " ")
			if !ok || v == "" || !strings.HasPrefix(d, "sha256:") {
				return nil, fmt.Errorf("npm tree: line %q is not npm:<path>=<version> sha256:<hex>", l)
			}
			p.Version, p.Integrity = v, d
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// String is "name@version" ("name -> target" for a link).
func (p NPMPackage) String() string {
	if p.Link != "" {
		return p.Name + " -> " + p.Link
	}
	return p.Name + "@" + p.Version
}

// NPMMoved names what moved between the npm tree a lockfile recorded
// (was) and a build's (now), one entry per package path, in path order:
// "npm <name> <was version> → <now version> (<path>)", "npm <name@version>
// files moved, <was integrity> → <now> (<path>)" when the version kept
// but the content did not, "npm <name@version> is new (<path>)" and
// "npm <name@version> is gone (<path>)"; at most maxMoved then "… and N
// more". Nil when they agree.
func NPMMoved(was, now []NPMPackage) []string {
	a, b := map[string]NPMPackage{}, map[string]NPMPackage{}
	var paths []string
	for _, p := range was {
		a[p.Path] = p
		paths = append(paths, p.Path)
	}
	for _, p := range now {
		if _, ok := a[p.Path]; !ok {
			paths = append(paths, p.Path)
		}
		b[p.Path] = p
	}
	sort.Strings(paths)
	var out []string
	for _, path := range paths {
		x, inA := a[path]
		y, inB := b[path]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("npm %s is new (%s)", y, path))
		case !inB:
			out = append(out, fmt.Sprintf("npm %s is gone (%s)", x, path))
		case x == y:
		case x.Version != y.Version || x.Link != y.Link:
			wv, nv := x.Version, y.Version
			if x.Link != "" {
				wv = "link:" + x.Link
			}
			if y.Link != "" {
				nv = "link:" + y.Link
			}
			out = append(out, fmt.Sprintf("npm %s %s → %s (%s)", x.Name, wv, nv, path))
		default:
			out = append(out, fmt.Sprintf("npm %s files moved, %s → %s (%s)", x, x.Integrity, y.Integrity, path))
		}
	}
	if len(out) > maxMoved {
		out = append(out[:maxMoved], fmt.Sprintf("… and %d more", len(out)-maxMoved))
	}
	return out
}

// Identity run outcomes a lockfile records (IdentityRun.Status).
const (
	// IdentityPassed: State A, checked by the image's modules against the
	// image's own truth, reached 1.0 in every module.
	IdentityPassed = "passed"
	// IdentitySkipped: srb build --no-identity did not run it.
	IdentitySkipped = "skipped"
	// IdentityNotFrozen: the task has no truth/ yet (srb freeze records
	// it), so there was nothing to reproduce.
	IdentityNotFrozen = "not-frozen"
)

// IdentityRun records the identity run srb build ran on a behavioural
// image (issue 5: an image whose truth does not reproduce cannot be
// built, so a lockfile never records a failed one).
type IdentityRun struct {
	// Status is IdentityPassed, IdentitySkipped or IdentityNotFrozen.
	Status string `json:"status"`
	// Checks is how many scored checks passed (IdentityPassed only).
	Checks int `json:"checks,omitempty"`
	// Verification is the digest of the verification image State A was
	// built in, with the old toolchain (IdentityPassed only).
	Verification string `json:"verification,omitempty"`
}

// NewLock records the built images of a task and the inputs they used.
func NewLock(t *task.Task, buildkit string, in *Inputs, built []*Built) *Lock {
	l := &Lock{Schema: LockSchema, Task: t.ID, TaskCommit: in.TaskCommit, SourceDateEpoch: t.Images.SourceDateEpoch, BuildKit: buildkit,
		Inputs: map[string]LockInput{}, Images: map[string]LockImage{}}
	all := InputsByName(in)
	for _, b := range built {
		im := LockImage{Digest: b.Digest, Config: b.Config, LLB: b.LLB, Inputs: map[string]string{}}
		for _, n := range StageInputs(t, b.Stage) {
			if x, ok := all[n]; ok {
				im.Inputs[n] = x.Digest
				l.Inputs[n] = LockInput{About: x.About, Digest: x.Digest}
			}
		}
		if b.Probed != nil {
			im.Inputs["packages"] = b.Probed.PackagesDigest
			// The probe read every line itself; one it cannot have
			// written is left out rather than recorded wrong (the
			// packages digest still covers it).
			im.NPM, _ = ParseNPMTree(b.Probed.Packages)
		}
		l.Images[b.Stage] = im
	}
	return l
}

// InputsByName lists in's inputs by the names the lockfile uses: base,
// go<version>, state-a, assets, helper, files-<stage>, notice.
func InputsByName(in *Inputs) map[string]Input {
	m := map[string]Input{"base": in.Base, "state-a": in.StateA}
	for v, g := range in.Go {
		m["go"+v] = g
	}
	if in.Assets != nil {
		m["assets"] = *in.Assets
	}
	if in.Helper != nil {
		m["helper"] = *in.Helper
	}
	for st, f := range in.Files {
		m["files-"+st] = f
	}
	m["notice"] = Input{Name: "notice", Digest: sha256Hex(in.Notice), About: "the task's NOTICE entry"}
	return m
}

// StageInputs names the inputs the image of stage is made from: the
// base, its Go toolchains, State A (the agent's tree, and every image's
// label), the NOTICE entry, and for the behavioural and verification
// images the task's assets and srb's helper.
func StageInputs(t *task.Task, stage string) []string {
	names := []string{"base", "state-a", "notice", "files-" + stage}
	for _, v := range t.Images.Stage(stage).Go {
		names = append(names, "go"+v)
	}
	if stage == "behavioural" || stage == "verification" {
		names = append(names, "assets", "helper")
	}
	return names
}

// WriteLock writes l to dir/images.lock (indented JSON, keys sorted,
// trailing newline), atomically. A lock that does not satisfy the
// images-lock JSON Schema is not written: the error names the field.
func WriteLock(dir string, l *Lock) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	b = append(b, '\n')
	path := filepath.Join(dir, LockName)
	if err := schema.ValidateBytes(schema.ImagesLock, b); err != nil {
		var ve *schema.ValidationError
		if errors.As(err, &ve) {
			ve.File = path
		}
		return fmt.Errorf("write lock: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	return nil
}

// ErrNoLock is returned by ReadLock when the task has no lockfile.
var ErrNoLock = errors.New("no lockfile")

// ReadLock reads dir/images.lock and validates it against the
// images-lock JSON Schema (srb schema images-lock). A lockfile that is not
// JSON, or breaks the schema, is an error naming the file and the JSON
// pointer of the offending field, e.g.
// "tasks/x/images.lock (images-lock): at /images/audit/digest: …".
func ReadLock(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read lock: %s: %w", path, ErrNoLock)
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	if err := schema.ValidateBytes(schema.ImagesLock, b); err != nil {
		var ve *schema.ValidationError
		if errors.As(err, &ve) {
			ve.File = path
			if ve.Pointer == "/schema" {
				ve.Msg += fmt.Sprintf(" (this srb reads %s; rebuild with srb build to rewrite it)", LockSchema)
			}
		}
		return nil, fmt.Errorf("read lock: %w", err)
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("read lock: %s: %w", path, err)
	}
	return &l, nil
}

// Drift is one image whose digest moved between a lockfile and a rebuild.
type Drift struct {
	Stage    string
	Was, Now string
	// Moved names the inputs whose digests moved, "name was → now" each;
	// empty when every input kept its digest (the build itself is not
	// reproducible).
	Moved []string
}

// String implements fmt.Stringer.
func (d Drift) String() string {
	s := fmt.Sprintf("image %s: digest %s, was %s", d.Stage, d.Now, d.Was)
	if len(d.Moved) == 0 {
		return s + "; no input moved, so the build is not reproducible"
	}
	return s + "; input " + strings.Join(d.Moved, "; input ")
}

// Compare returns the images of want whose digests differ in got, or
// that got lacks, each with the inputs that moved.
func Compare(want, got *Lock) []Drift {
	var ds []Drift
	for _, s := range sortedKeys(want.Images) {
		w := want.Images[s]
		g, ok := got.Images[s]
		if !ok {
			ds = append(ds, Drift{Stage: s, Was: w.Digest, Now: "(not built)"})
			continue
		}
		if g.Digest == w.Digest {
			continue
		}
		d := Drift{Stage: s, Was: w.Digest, Now: g.Digest}
		for _, n := range sortedKeys(w.Inputs) {
			if g.Inputs[n] != w.Inputs[n] {
				now := g.Inputs[n]
				if now == "" {
					now = "(gone)"
				}
				d.Moved = append(d.Moved, fmt.Sprintf("%s moved from %s to %s", n, w.Inputs[n], now))
			}
		}
		for _, n := range sortedKeys(g.Inputs) {
			if _, ok := w.Inputs[n]; !ok {
				d.Moved = append(d.Moved, fmt.Sprintf("%s is new (%s)", n, g.Inputs[n]))
			}
		}
		// The npm tree want recorded is compared package by package, so
		// the dependency a registry moved is named wherever the rebuild
		// runs (not only where the earlier packages list is kept).
		if w.NPM != nil {
			for _, m := range NPMMoved(w.NPM, g.NPM) {
				d.Moved = append(d.Moved, "packages: "+m)
			}
		}
		ds = append(ds, d)
	}
	return ds
}

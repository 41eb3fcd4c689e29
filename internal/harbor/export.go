package harbor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// ExportOptions are the inputs of [Export].
type ExportOptions struct {
	// Task is the loaded task; Lock its images.lock (the digests the
	// exported Dockerfiles and test.sh pin).
	Task *task.Task
	Lock *image.Lock
	// Registry is the repository srb build --push published the images to:
	// stage S is Registry:<task id>-S@<digest>.
	Registry string
	// Out is the task directory written; it must not exist.
	Out string
	// SRBBinary is srb's static binary copied into the verifier image;
	// "" is this program (os.Executable).
	SRBBinary string
	// DockerCLI is a static docker client copied into the verifier image
	// (test.sh pulls the stage images with it); "" is docker on PATH.
	DockerCLI string
	// Cache is the State A cache (srb fetch fills it): State A's archive is
	// copied from it into the verifier image, which never fetches.
	Cache string
	// PassEnv are more variable names passed to the verifier by name.
	PassEnv []string
	// Solution, when not nil, is written to solution/.
	Solution *Solution
}

// Exported says what [Export] wrote.
type Exported struct {
	Config *TaskConfig
	Files  []string // relative to Out, sorted
}

// imageRef is stage's image as srb build --push REG publishes it, pinned by
// the lock's manifest digest.
func imageRef(registry, id, stage string, l *image.Lock) (string, error) {
	im, ok := l.Images[stage]
	if !ok || !strings.HasPrefix(im.Digest, "sha256:") {
		return "", fmt.Errorf("images.lock has no %s image digest: srb build %s --push REG writes it", stage, id)
	}
	return fmt.Sprintf("%s:%s-%s@%s", registry, id, stage, im.Digest), nil
}

// Export writes the Harbor task directory of o.Task into o.Out: task.toml
// (checked against the schema before anything is written), instruction.md,
// environment/Dockerfile, tests/ (Dockerfile, docker-compose.yaml, test.sh,
// srb, docker, root/ with the task folder, State A's cache entry and a
// local source), and solution/ when o.Solution is set. A lock that does not
// belong to the task, or lacks a stage, is an error, and so is one whose
// behavioural or verification image was built from other assets than the
// task folder holds now ([image.StaleAssets]).
func Export(ctx context.Context, o ExportOptions) (*Exported, error) {
	t := o.Task
	if o.Lock == nil {
		return nil, fmt.Errorf("%s: no images.lock: srb build %s --push REG builds, publishes and locks the images", t.Dir, t.Arg())
	}
	if o.Lock.Task != t.ID {
		return nil, fmt.Errorf("%s: images.lock is for task %q, not %q", t.Dir, o.Lock.Task, t.ID)
	}
	if o.Registry == "" || strings.ContainsAny(o.Registry, "@ \t\n") {
		return nil, fmt.Errorf("--registry %q: a repository such as registry.example/srb (no tag, no digest)", o.Registry)
	}
	var err error
	if o.SRBBinary == "" {
		if o.SRBBinary, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("srb's binary: %w (give --srb FILE)", err)
		}
	}
	if o.DockerCLI == "" {
		if o.DockerCLI, err = exec.LookPath("docker"); err != nil {
			return nil, errors.New("no docker client on PATH for the verifier image: give --docker FILE")
		}
	}
	refs := map[string]string{}
	for _, s := range task.StageNames {
		r, err := imageRef(o.Registry, t.ID, s, o.Lock)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(t.Dir, "images.lock"), err)
		}
		refs[s] = r
		// The verifier grades with these images and the task folder
		// exported beside them: images built from other modules/, data/
		// or truth/ than the folder holds would grade with the old ones.
		stale, err := image.StaleAssets(t, s, o.Lock.Images[s])
		if err != nil {
			return nil, err
		}
		if stale != "" {
			return nil, fmt.Errorf("%s; the export would pin images that do not hold the task folder it ships: srb build %s --push REG rebuilds, publishes and locks them", stale, t.Arg())
		}
	}
	cfg, err := Derive(t, o.PassEnv)
	if err != nil {
		return nil, err
	}
	if o.Solution != nil {
		cfg.Solution = &SolutionTable{}
	}
	toml, err := cfg.Marshal()
	if err != nil {
		return nil, err
	}
	if err := Check("task.toml", toml); err != nil {
		return nil, fmt.Errorf("srb wrote a task.toml Harbor would refuse (a bug in srb): %w", err)
	}
	instruction, err := os.ReadFile(filepath.Join(t.Dir, t.Instruction))
	if err != nil {
		return nil, fmt.Errorf("instruction: %w", err)
	}
	if _, err := os.Lstat(o.Out); err == nil {
		return nil, fmt.Errorf("%s already exists: srb export writes a new folder", o.Out)
	}
	tmp := o.Out + ".srb-partial"
	os.RemoveAll(tmp)
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	write := func(rel string, data []byte, mode fs.FileMode) error {
		p := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, mode)
	}
	verifierTask := path.Join(VerifierRoot, "tasks", t.ID)
	files := []struct {
		rel  string
		data string
		mode fs.FileMode
	}{
		{"task.toml", string(toml), 0o644},
		{"instruction.md", string(instruction), 0o644},
		{"environment/Dockerfile", environmentDockerfile(t, refs["agent"]), 0o644},
		{"tests/Dockerfile", verifierDockerfile(t, refs["audit"]), 0o644},
		{"tests/docker-compose.yaml", composeFile(), 0o644},
		{"tests/test.sh", testScript(t, refs, verifierTask), 0o755},
	}
	for _, f := range files {
		if err := write(f.rel, []byte(f.data), f.mode); err != nil {
			return nil, err
		}
	}
	for _, bin := range []struct{ from, to, what string }{{o.SRBBinary, "tests/srb", "srb's binary"}, {o.DockerCLI, "tests/docker", "the docker client"}} {
		if bin.from == "" {
			return nil, fmt.Errorf("%s for the verifier image: not given", bin.what)
		}
		if _, err := copytree.Copy(bin.from, filepath.Join(tmp, filepath.FromSlash(bin.to)), copytree.Options{}); err != nil {
			return nil, fmt.Errorf("%s for the verifier image: %w", bin.what, err)
		}
		if err := os.Chmod(filepath.Join(tmp, filepath.FromSlash(bin.to)), 0o755); err != nil {
			return nil, err
		}
	}
	root := filepath.Join(tmp, "tests", "root")
	if _, err := copytree.Copy(t.Dir, filepath.Join(root, "tasks", t.ID), copytree.Options{DirBits: 0o755}); err != nil {
		return nil, fmt.Errorf("the task folder: %w", err)
	}
	if err := copyStateA(ctx, t, o.Cache, root); err != nil {
		return nil, fmt.Errorf("State A for the verifier image: %w", err)
	}
	if o.Solution != nil {
		if err := o.Solution.WriteDir(filepath.Join(tmp, "solution"), t.Artifacts.Path); err != nil {
			return nil, err
		}
	}
	var list []string
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(tmp, p)
			list = append(list, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, o.Out); err != nil {
		return nil, err
	}
	ok = true
	return &Exported{Config: cfg, Files: list}, nil
}

// copyStateA puts what srb ladder needs to materialise State A offline
// under root (the verifier image's VerifierRoot): a local source's folder
// at the path the task names it by, or the cache's record and archive.
func copyStateA(ctx context.Context, t *task.Task, cacheDir, root string) error {
	s := t.StateA.Source
	if s.Kind == "local" {
		if filepath.IsAbs(s.Path) {
			return fmt.Errorf("state_a.source.path %s is absolute: the verifier image can only hold a path relative to the task", s.Path)
		}
		in := path.Join("tasks", t.ID, filepath.ToSlash(s.Path))
		if in == ".." || strings.HasPrefix(in, "../") {
			return fmt.Errorf("state_a.source.path %s leaves %s", s.Path, VerifierRoot)
		}
		if strings.HasPrefix(in, path.Join("tasks", t.ID)+"/") {
			return nil // inside the task folder, copied with it
		}
		_, err := copytree.Copy(filepath.Join(t.Dir, s.Path), filepath.Join(root, filepath.FromSlash(in)), copytree.Options{DirBits: 0o755})
		return err
	}
	if cacheDir == "" {
		return errors.New("no State A cache")
	}
	c := &source.Cache{Dir: cacheDir}
	e, err := c.Materialise(ctx, t.StateA, t.Dir, &source.Env{})
	if err != nil {
		return err
	}
	key := source.Key(s, source.Top(t.StateA))
	dst := filepath.Join(root, "cache")
	if _, err := copytree.Copy(filepath.Join(cacheDir, "sources", key+".json"), filepath.Join(dst, "sources", key+".json"), copytree.Options{}); err != nil {
		return err
	}
	_, err = copytree.Copy(e.Archive, filepath.Join(dst, "state-a", e.Digest, filepath.Base(e.Archive)), copytree.Options{})
	return err
}

func environmentDockerfile(t *task.Task, ref string) string {
	return fmt.Sprintf(`# Written by srb export harbor from tasks/%[1]s/task.cue: the agent's
# environment is the task's agent image as srb build --push published it,
# pinned by digest (images.lock): State A at %[2]s, owned by the
# user %[3]s, with both stacks' toolchains.
FROM %[4]s
`, t.ID, t.Artifacts.Path, t.Agent.User, ref)
}

func verifierDockerfile(t *task.Task, auditRef string) string {
	return fmt.Sprintf(`# Written by srb export harbor from tasks/%[1]s/task.cue: Harbor's separate
# verifier. It builds nothing and never runs the submission: test.sh runs
# srb ladder, which starts the task's stage images (pinned by digest) as
# sibling containers over the Docker socket docker-compose.yaml mounts.
# The base is the task's audit image, pinned like the others, for its shell.
FROM %[2]s
COPY srb %[3]s
COPY docker /usr/local/bin/docker
COPY root/ %[4]s/
COPY test.sh /tests/test.sh
RUN chmod 0755 %[3]s /usr/local/bin/docker /tests/test.sh && mkdir -p %[5]s /workspace
WORKDIR /tests
`, t.ID, auditRef, VerifierBinary, VerifierRoot, LogsVerifier)
}

func composeFile() string {
	return fmt.Sprintf(`# Written by srb export harbor: the verifier reaches the Docker engine
# through its socket, to start the stage images as sibling containers.
services:
  main:
    volumes:
      - %[1]s:%[1]s
`, DockerSocket)
}

func testScript(t *task.Task, refs map[string]string, taskDir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# Written by srb export harbor from tasks/%[1]s/task.cue: Harbor's verifier
# entry point. Harbor collected %[2]s from the agent's container and
# placed it here; srb ladder grades it into %[3]s (reward.json last).
# A stage image that cannot be pulled is left to srb ladder, which then
# publishes an invalid verdict naming it (never a zero).
set -u
mkdir -p %[3]s
pull() {
	if docker pull --quiet "$2" >/dev/null && docker tag "$2" "srb/%[1]s:$1"; then
		echo "srb test.sh: the $1 image is $2" >&2
	else
		echo "srb test.sh: could not pull the $1 image $2" >&2
	fi
}
`, t.ID, t.Artifacts.Path, LogsVerifier)
	for _, s := range []string{"audit", "behavioural", "verification"} {
		fmt.Fprintf(&b, "pull %s %s\n", s, shellQuote(refs[s]))
	}
	b.WriteString("# Arguments, when given, are more srb ladder flags (Harbor gives none;\n# srb's own tests choose scripted drivers with them).\n")
	fmt.Fprintf(&b, "exec %s ladder %s --submission %s --results %s --cache %s \"$@\"\n",
		VerifierBinary, taskDir, shellQuote(t.Artifacts.Path), LogsVerifier, VerifierCache)
	return b.String()
}

package verification

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// WarmConfig configures [WarmHome]: the task's
// verification.warm_command, run once per stage before the first round,
// with no tree and nothing of the graded side in reach, so that what it
// leaves in its HOME (a build cache of the toolchain's standard library,
// say) can seed every tree's HOME for its warm-up run
// ([ContainerConfig.HomeSeed]) instead of each
// round building it cold.
//
// Command is the argv as the verification image sees it; Paths are the
// image's folders it names files in (the task's files, at
// verification.assets): an argument under one of them is given as the
// session's processes see it ([engine.Session.Path]: itself in a
// container, under the session's root folder on this machine). Env is
// the base environment (nil: LANG=C.UTF-8, added to the image's, or on
// this machine to [engine.Local]'s); HOME and TMPDIR are always the fresh
// folder the seed is taken from. Timeout bounds the command (0: 600 s).
// Seed is where the seed is written: a folder that must not exist yet,
// in a place only the grader can reach. Network allows the network (the
// task's verification.network_allowed). Start is a folder of the
// grader's whose content HOME starts with ([ContainerConfig.HomeSeed]'s
// kind). User ("": [CandidateUser], "uid:gid"), Pids, Memory, Disk and
// CPUs are as in [ContainerConfig].
type WarmConfig struct {
	Command []string
	Start   string
	Paths   []string
	Env     []string
	Timeout time.Duration
	Seed    string
	Network bool
	User    string
	Pids    int64
	Memory  int64
	Disk    int64
	CPUs    int64
}

// Warmed is what a warm command left: the seed folder, its number of
// regular files and their bytes, and how long the command ran.
type Warmed struct {
	Seed     string
	Files    int
	Bytes    int64
	Duration time.Duration
}

// Map is the record verification.json keeps of the warm run
// (metadata.warm_home): command, files, bytes, duration_sec.
func (w *Warmed) Map(command []string) map[string]any {
	return map[string]any{"command": slices.Clone(command), "files": w.Files, "bytes": w.Bytes,
		"duration_sec": float64(w.Duration.Milliseconds()) / 1000}
}

// WarmError is a warm command that ran and failed (a non-zero exit, a
// timeout): the task's own configuration, since the command sees nothing
// of the graded side. Other errors of the Warm functions are the grader's.
type WarmError struct {
	Command  []string
	ExitCode int
	TimedOut bool
	Stderr   string
}

// Error says which command failed and how, with the end of its stderr.
func (e *WarmError) Error() string {
	what := fmt.Sprintf("exited %d", e.ExitCode)
	if e.TimedOut {
		what = "timed out"
	}
	msg := fmt.Sprintf("verification.warm_command %s %s", strings.Join(e.Command, " "), what)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		tail := lastRunes(s, 600)
		if tail != s {
			tail = "…" + tail
		}
		msg += ": " + tail
	}
	return msg
}

func (cfg *WarmConfig) defaults() error {
	if len(cfg.Command) == 0 {
		return errors.New("warm: no command")
	}
	if cfg.Seed == "" {
		return errors.New("warm: no seed folder")
	}
	if _, err := os.Lstat(cfg.Seed); err == nil {
		return fmt.Errorf("warm: the seed folder %s exists already", cfg.Seed)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 600 * time.Second
	}
	return nil
}

// WarmHome runs cfg.Command in a session of image of its own, started by
// starter (Docker: a container of the verification image; an
// [engine.Local]: a private folder and user of its own on this machine,
// the task's files where the image has them): no tree in it, no network
// unless cfg.Network, no_new_privs and cfg's limits where the backend has
// them. It runs as cfg.User ("": [CandidateUser]) with HOME the folder
// /srb/home it owns, empty or holding cfg.Start's content, and that
// folder is copied out to cfg.Seed. The session is removed before it
// returns. A command that fails, or names a file the session lacks, is a
// *[WarmError]; other errors are the grader's.
func WarmHome(ctx context.Context, starter Starter, image string, labels map[string]string, cfg WarmConfig) (*Warmed, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if cfg.User == "" {
		cfg.User = CandidateUser
	}
	uid, gid, err := numericUser(cfg.User)
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	if cfg.Pids == 0 {
		cfg.Pids = 1024
	}
	if cfg.Memory == 0 {
		cfg.Memory = engine.DefaultLimits.Memory
	}
	network := ""
	if cfg.Network {
		network = "bridge"
	}
	all := maps.Clone(labels)
	if all == nil {
		all = map[string]string{}
	}
	all["srb.tree"] = "warm-home"
	// HOME is made on the grader's side (empty, or started from cfg.Start)
	// and copied in as the command's user's.
	stage, err := os.MkdirTemp("", "srb-warm-")
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	defer forceRemove(stage)
	home := filepath.Join(stage, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	if cfg.Start != "" {
		if err := copyInto(cfg.Start, home); err != nil {
			return nil, fmt.Errorf("warm: start HOME from %s: %w", cfg.Start, err)
		}
	}
	sess, err := starter.Start(ctx, engine.Spec{Image: image, Labels: all, Network: network,
		Pids: cfg.Pids, Memory: cfg.Memory, Disk: cfg.Disk, NanoCPUs: cfg.CPUs * 1e9, NoNewPrivileges: true})
	if err != nil {
		return nil, fmt.Errorf("warm: the verification image %s: %w", image, err)
	}
	defer sess.Close(context.WithoutCancel(ctx))
	if err := sess.CopyInOwned(ctx, home, containerHome, uid, gid); err != nil {
		return nil, fmt.Errorf("warm: cannot make %s: %w", containerHome, err)
	}
	argv := sessionArgv(sess, cfg.Command, cfg.Paths)
	if miss, err := missingArg(ctx, sess, cfg.User, argv); err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	} else if miss >= 0 {
		what := fmt.Sprintf("argument %s does not exist", cfg.Command[miss])
		if miss == 0 {
			what = fmt.Sprintf("the program %s cannot be found", cfg.Command[0])
		}
		return nil, &WarmError{Command: cfg.Command, ExitCode: -1, Stderr: what + " in the verification image " + image}
	}
	env := slices.Clone(cfg.Env)
	if env == nil {
		env = []string{"LANG=C.UTF-8"}
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	env = append(env, "HOME="+sess.Path(containerHome), "TMPDIR="+sess.Path(containerHome))
	start := time.Now()
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: argv, Env: env, WorkDir: containerHome, User: cfg.User, Timeout: cfg.Timeout})
	took := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	if r.TimedOut || r.ExitCode != 0 {
		return nil, &WarmError{Command: cfg.Command, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Stderr: string(r.Stderr)}
	}
	if err := sess.CopyOut(ctx, containerHome, cfg.Seed); err != nil {
		return nil, fmt.Errorf("warm: keep the seed: %w", err)
	}
	return seeded(cfg.Seed, took)
}

// numericUser splits a "uid:gid" user ("uid" alone: gid the same).
func numericUser(user string) (int, int, error) {
	u, g, ok := strings.Cut(user, ":")
	if !ok {
		g = u
	}
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("user %q is not uid:gid", user)
	}
	return uid, gid, nil
}

// sessionArgv writes each argument of argv under one of paths (image
// folders) as sess's processes see it.
func sessionArgv(sess *engine.Session, argv, paths []string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		for _, p := range paths {
			p = strings.TrimRight(p, "/")
			if a == p || strings.HasPrefix(a, p+"/") {
				out[i] = sess.Path(a)
				break
			}
		}
	}
	return out
}

// missingArg is the launch check (HARNESS.md §4.3) run in sess as user:
// the program can be found and every absolute argument that is a plain
// path exists. It returns the index of the first that fails, or -1.
func missingArg(ctx context.Context, sess *engine.Session, user string, argv []string) (int, error) {
	idx := []int{0}
	args := []string{argv[0]}
	for i, a := range argv[1:] {
		if strings.HasPrefix(a, "/") && !strings.ContainsAny(a, " \t\n'\"$;|&<>()") {
			idx, args = append(idx, i+1), append(args, a)
		}
	}
	script := `command -v "$1" >/dev/null 2>&1 || { echo 0; exit 1; }; shift; i=1; for f; do [ -e "$f" ] || { echo $i; exit 1; }; i=$((i+1)); done`
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: append([]string{"/bin/sh", "-c", script, "sh"}, args...), User: user, Timeout: time.Minute})
	if err != nil {
		return -1, fmt.Errorf("launch check: %w", err)
	}
	if r.ExitCode == 0 {
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	if err != nil || n < 0 || n >= len(idx) {
		return -1, fmt.Errorf("launch check: exit %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	return idx[n], nil
}

// seeded counts the seed's regular files and bytes.
func seeded(dir string, took time.Duration) (*Warmed, error) {
	w := &Warmed{Seed: dir, Duration: took}
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		w.Files++
		w.Bytes += info.Size()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	return w, nil
}

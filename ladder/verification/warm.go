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
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// WarmConfig configures [WarmHomeOnHost] and [WarmHomeInImage]: the
// task's verification.warm_command, run once per stage before the first
// round, with no tree and nothing of the graded side in reach, so that
// what it leaves in its HOME (a build cache of the toolchain's standard
// library, say) can seed every tree's HOME for its warm-up run
// ([HostConfig.HomeSeed], [ContainerConfig.HomeSeed]) instead of each
// round building it cold.
//
// Command is the argv as the verification image sees it; PathMap rewrites
// its arguments for a run on this machine as [HostConfig.PathMap] does.
// Env is the base environment (nil: [HostCandidateEnv] on this machine,
// the image's own plus LANG in a container); HOME is always the fresh
// folder the seed is taken from. Timeout bounds the command (0: 600 s).
// Seed is where the seed is written: a folder that must not exist yet,
// in a place only the grader can reach. Network allows the network (the
// task's verification.network_allowed). Start, on this machine only, is a
// folder whose content HOME starts with ([HostConfig.HomeSeed]'s kind).
// In a container, User, Pids, Memory, Disk and CPUs are as in
// [ContainerConfig].
type WarmConfig struct {
	Command []string
	Start   string
	PathMap map[string]string
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

// WarmHomeOnHost runs cfg.Command on this machine. As root it runs as a
// [HostUser] of its own (an unused uid, contained, its processes killed
// afterwards) with the task's files it names copied where that user can
// read them; otherwise as this process's user with a fresh HOME. The
// HOME it leaves is copied to cfg.Seed. A command that fails is a
// *[WarmError].
func WarmHomeOnHost(ctx context.Context, cfg WarmConfig) (*Warmed, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	env := slices.Clone(cfg.Env)
	if env == nil {
		env = HostCandidateEnv()
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	var (
		runner agent.Runner = agent.LocalRunner{}
		home   string
		reach  string
	)
	user, err := NewHostUser()
	if err != nil {
		return nil, err
	}
	if user != nil {
		defer user.Close()
		runner = toolRunner{uid: user.UID(), network: cfg.Network}
		home, reach = user.home(), user.Dir()
	} else {
		if reach, err = os.MkdirTemp("", "srb-warm-"); err != nil {
			return nil, fmt.Errorf("warm: %w", err)
		}
		defer forceRemove(reach)
		home = filepath.Join(reach, "home")
		if err := os.Mkdir(home, 0o700); err != nil {
			return nil, fmt.Errorf("warm: %w", err)
		}
	}
	if cfg.Start != "" {
		if err := copyInto(cfg.Start, home); err != nil {
			return nil, fmt.Errorf("warm: start HOME from %s: %w", cfg.Start, err)
		}
		if user != nil {
			if err := user.Give(home); err != nil {
				return nil, err
			}
		}
	}
	// The task's files the command names are copied where its user may
	// read them (the task folder itself may sit under a folder closed to
	// other users), as [NewHost] copies them for the candidate command.
	pathMap, err := copyAssets(cfg.PathMap, filepath.Join(reach, "assets"))
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	argv, err := CheckCommand(cfg.Command, pathMap)
	if err != nil {
		return nil, &WarmError{Command: cfg.Command, ExitCode: -1, Stderr: strings.TrimPrefix(err.Error(), "sandbox: ")}
	}
	env = append(env, "HOME="+home, "TMPDIR="+home)
	start := time.Now()
	res, err := runner.Run(ctx, agent.Command{Argv: argv, Dir: home, Env: env, Timeout: cfg.Timeout})
	took := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	if res.TimedOut || res.ExitCode != 0 {
		return nil, &WarmError{Command: cfg.Command, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Stderr: string(res.Stderr)}
	}
	if err := copyTree(home, cfg.Seed); err != nil {
		return nil, fmt.Errorf("warm: keep the seed: %w", err)
	}
	return seeded(cfg.Seed, took)
}

// WarmHomeInImage runs cfg.Command in a container of image of its own
// (started by starter, no tree in it, no network unless cfg.Network,
// no_new_privs, cfg's limits), as cfg.User ("": [CandidateUser]) with
// HOME the empty folder /srb/home it owns, and copies that folder out to
// cfg.Seed. The container is removed before it returns. A command that
// fails is a *[WarmError].
func WarmHomeInImage(ctx context.Context, starter Starter, image string, labels map[string]string, cfg WarmConfig) (*Warmed, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if cfg.User == "" {
		cfg.User = CandidateUser
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
	sess, err := starter.Start(ctx, engine.Spec{Image: image, Labels: all, Network: network,
		Pids: cfg.Pids, Memory: cfg.Memory, Disk: cfg.Disk, NanoCPUs: cfg.CPUs * 1e9, NoNewPrivileges: true})
	if err != nil {
		return nil, fmt.Errorf("warm: the verification image %s: %w", image, err)
	}
	defer sess.Close(context.WithoutCancel(ctx))
	if err := rootSh(ctx, sess, `set -e; rm -rf "$1"; mkdir -p "$1"; chown "$2" "$1"; chmod 700 "$1"`, containerHome, cfg.User); err != nil {
		return nil, fmt.Errorf("warm: cannot make %s: %w", containerHome, err)
	}
	env := slices.Clone(cfg.Env)
	if env == nil {
		env = []string{"LANG=C.UTF-8"}
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	env = append(env, "HOME="+containerHome, "TMPDIR="+containerHome)
	start := time.Now()
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: cfg.Command, Env: env, WorkDir: containerHome, User: cfg.User, Timeout: cfg.Timeout})
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

package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// The identity and date of the one commit of the agent's starting tree.
// They are fixed so the commit id depends on State A's content alone
// (the paper, appendix A: history squashed to a single commit, since an
// upstream log may already describe a past migration).
const (
	StartAuthor  = "State A"
	StartEmail   = "state-a@srb.invalid"
	StartDate    = "2000-01-01T00:00:00Z"
	StartMessage = "State A\n"
)

// StartingTree unpacks the canonical State A archive into dir (which must
// not exist or be empty), without its top-level folder, and makes it a git
// repository with exactly one commit on branch main by a fixed author and
// committer at a fixed date, so the commit id is reproducible. It returns
// the commit id (40 hex). git is the git executable ("" for git on PATH).
// lim bounds the extraction: pass the [Entry]'s Limits.
func StartingTree(ctx context.Context, archivePath, dir, git string, lim archive.Limits) (string, error) {
	if git == "" {
		git = "git"
	}
	tmp := dir + ".unpack"
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := archive.ExtractFile(archivePath, tmp, lim); err != nil {
		return "", fmt.Errorf("starting tree: %w", err)
	}
	top := archive.SingleTop(tmp)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return "", fmt.Errorf("starting tree: %s is not empty", dir)
	}
	_ = os.Remove(dir)
	if err := os.Rename(top, dir); err != nil {
		return "", fmt.Errorf("starting tree: %w", err)
	}
	env := []string{
		"GIT_AUTHOR_NAME=" + StartAuthor, "GIT_AUTHOR_EMAIL=" + StartEmail, "GIT_AUTHOR_DATE=" + StartDate,
		"GIT_COMMITTER_NAME=" + StartAuthor, "GIT_COMMITTER_EMAIL=" + StartEmail, "GIT_COMMITTER_DATE=" + StartDate,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + dir,
	}
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "core.autocrlf", "false"},
		{"config", "core.fileMode", "true"},
		{"config", "commit.gpgSign", "false"},
		{"add", "-A", "-f", "."},
		{"commit", "-q", "--no-verify", "--allow-empty", "-m", StartMessage},
	}
	for _, args := range steps {
		if _, err := run(ctx, dir, env, git, args...); err != nil {
			return "", fmt.Errorf("starting tree: %w", err)
		}
	}
	out, err := run(ctx, dir, env, git, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("starting tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// StartCommit returns the commit id of the starting tree of the State A
// e (see [StartingTree]), computed once and then recorded in the cache
// beside the archive (state-a/<digest>/start-commit).
func (c *Cache) StartCommit(ctx context.Context, e *Entry, git string) (string, error) {
	d := e.Digest
	rec := filepath.Join(c.Dir, "state-a", d, "start-commit")
	if b, err := os.ReadFile(rec); err == nil {
		if id := strings.TrimSpace(string(b)); len(id) == 40 {
			return id, nil
		}
	}
	if err := os.MkdirAll(filepath.Join(c.Dir, "tmp"), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Join(c.Dir, "tmp"), "start-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	id, err := StartingTree(ctx, c.Path(d), filepath.Join(work, "repo"), git, e.Limits)
	if err != nil {
		return "", err
	}
	return id, writeAtomic(rec, []byte(id+"\n"))
}

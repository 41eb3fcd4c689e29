package image

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The task commit ignores the files srb writes into the task folder, so a
// lockfile committed on its own does not move the label of the images it
// pins (found when lang01's committed lock no longer reproduced).
func TestTaskCommitIgnoresGeneratedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	repo := t.TempDir()
	dir := filepath.Join(repo, "tasks", "x")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if got := taskCommit(ctx, t.TempDir()); got != "uncommitted" {
		t.Errorf("outside a checkout: taskCommit = %q, want uncommitted", got)
	}
	git("init", "-q")
	write("task.cue", "package srb\n")
	git("add", ".")
	git("commit", "-q", "-m", "task")
	declared := git("rev-parse", "HEAD")
	if got := taskCommit(ctx, dir); got != declared {
		t.Fatalf("taskCommit = %q, want %q", got, declared)
	}

	// Uncommitted lockfile and truth: still clean.
	write(LockName, "{}\n")
	write("truth/build.json", "{}\n")
	if got := taskCommit(ctx, dir); got != declared {
		t.Errorf("with an uncommitted lockfile and truth: taskCommit = %q, want %q", got, declared)
	}
	// Committed: the label does not move.
	git("add", ".")
	git("commit", "-q", "-m", "lock and truth")
	if got := taskCommit(ctx, dir); got != declared {
		t.Errorf("after committing the lockfile and truth: taskCommit = %q, want %q", got, declared)
	}
	// A change to the declaration is dirty, then a new commit.
	write("task.cue", "package srb\n// edited\n")
	if got := taskCommit(ctx, dir); got != declared+"-dirty" {
		t.Errorf("with an edited declaration: taskCommit = %q, want %q", got, declared+"-dirty")
	}
	git("commit", "-q", "-am", "edit")
	if got, want := taskCommit(ctx, dir), git("rev-parse", "HEAD"); got != want {
		t.Errorf("after committing the edit: taskCommit = %q, want %q", got, want)
	}
}

// Every committed images.lock pins images labelled with its task folder's
// commit: a lock written from a task folder with uncommitted changes
// records "<commit>-dirty" and the commit before them, so a clean clone
// builds images labelled otherwise and the digests no longer match (found
// when eight locks were written before their runners' change was
// committed). Skipped for a task folder being edited here.
func TestCommittedLocksNameTheirTaskCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	locks, err := filepath.Glob(filepath.Join("..", "..", "tasks", "*", LockName))
	if err != nil || len(locks) == 0 {
		t.Fatalf("no committed locks under tasks/ (%v)", err)
	}
	for _, p := range locks {
		dir := filepath.Dir(p)
		if out, err := exec.Command("git", "-C", dir, "ls-files", "--error-unmatch", LockName).CombinedOutput(); err != nil {
			t.Logf("%s: not committed (%s)", p, strings.TrimSpace(string(out)))
			continue
		}
		l, err := ReadLock(dir)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if strings.HasSuffix(l.TaskCommit, "-dirty") || l.TaskCommit == "uncommitted" {
			t.Errorf("%s: task_commit %q: written from a task folder with uncommitted changes; commit them, run srb build again and commit the lock", p, l.TaskCommit)
			continue
		}
		here := taskCommit(context.Background(), dir)
		if strings.HasSuffix(here, "-dirty") || here == "uncommitted" {
			t.Logf("%s: the task folder is being edited here (%s): not compared", p, here)
			continue
		}
		if l.TaskCommit != here {
			t.Errorf("%s: task_commit %s, but the task folder's last commit is %s: run srb build %s and commit the lock", p, l.TaskCommit, here, dir)
		}
	}
}

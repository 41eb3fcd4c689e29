package stages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// testTask is a task view with two adversaries and a provenance that
// names the stage, so a test sees what was stamped.
func testTask(dir string) *Task {
	return &Task{
		ID: "t1", Dir: dir, Policy: scoring.Published(),
		Audit: AuditSpec{Model: models.Config{Driver: models.DriverScripted, Options: map[string]any{"script": "a.json"}}, Prompt: "audit.md"},
		Verification: VerificationSpec{
			Prompt:          "verification.md",
			Adversaries:     []verification.Adversary{{ID: "a01"}, {ID: "a02"}},
			AdversaryModels: []models.Config{{Driver: "openai", Model: "m1"}, {Driver: "anthropic", Model: "m2"}},
			Adjudicator:     models.Config{Driver: "openai", Model: "judge"},
		},
		Provenance: func(stage, ref string, host bool) result.Provenance {
			return result.Provenance{TaskCommit: "c-" + stage, StateA: "abc", Where: map[bool]string{true: "host", false: "container"}[host]}
		},
	}
}

func TestPositions(t *testing.T) {
	tk := testTask(t.TempDir())
	got := tk.Positions(result.StageAudit, result.StageVerification)
	var where []string
	for _, p := range got {
		where = append(where, p.Where+"="+p.Config.Driver+"/"+p.Config.Model)
	}
	want := "audit=scripted/,verification.adjudicator=openai/judge,verification.adversaries[a01]=openai/m1,verification.adversaries[a02]=anthropic/m2"
	if strings.Join(where, ",") != want {
		t.Fatalf("positions %s, want %s", strings.Join(where, ","), want)
	}
	// Each position has its own options: changing one leaves the task's.
	got[0].Config.Options["script"] = "other.json"
	if tk.Audit.Model.Options["script"] != "a.json" {
		t.Fatalf("the task's options changed: %v", tk.Audit.Model.Options)
	}
}

func TestAuditPromptMissingIsTheTasks(t *testing.T) {
	dir, results, sub := t.TempDir(), t.TempDir(), t.TempDir()
	var log bytes.Buffer
	err := Audit(context.Background(), testTask(dir), AuditOptions{Submission: sub, Results: results, Original: sub, Log: &log})
	if pipeline.Code(err) != pipeline.BadTask || !strings.Contains(err.Error(), "audit prompt not readable") {
		t.Fatalf("error %v (exit %d), want the task's: audit prompt not readable", err, pipeline.Code(err))
	}
	st, rerr := result.ReadStage(filepath.Join(results, "audit.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if st.Status != result.StatusError || st.Metadata["config_error"] != true || st.Task != "t1" {
		t.Fatalf("audit.json status %s, config_error %v, task %s", st.Status, st.Metadata["config_error"], st.Task)
	}
	prov, _ := st.Metadata[result.MetaProvenance].(map[string]any)
	if prov["task_commit"] != "c-audit" || prov["where"] != "container" {
		t.Fatalf("provenance %v, want the task's for the audit in its image", prov)
	}
}

func TestAuditNoSubmission(t *testing.T) {
	results := t.TempDir()
	err := Audit(context.Background(), testTask(t.TempDir()), AuditOptions{Submission: filepath.Join(results, "none"), Results: results})
	if pipeline.Code(err) != pipeline.CouldNotRun || !strings.Contains(err.Error(), "submission not found") {
		t.Fatalf("error %v, want could not run: submission not found", err)
	}
}

func TestBehaviouralDeclarationIsTheTasks(t *testing.T) {
	results, sub := t.TempDir(), t.TempDir()
	tk := testTask(t.TempDir())
	tk.Declaration = func() (*behavioural.Declaration, error) {
		return nil, errors.New("task.cue:3: behavioural.modules[0]: no kind")
	}
	err := Behavioural(context.Background(), tk, BehaviouralOptions{Submission: sub, Results: results, Host: true})
	if pipeline.Code(err) != pipeline.BadTask {
		t.Fatalf("error %v, want the task's", err)
	}
	st, rerr := result.ReadStage(filepath.Join(results, "behavioural.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if st.Metadata["config_error"] != true || st.Metadata["error"] != "behavioural: no kind" && !strings.Contains(strings.Join(st.Notes, ""), "no kind") {
		t.Fatalf("behavioural.json %+v does not name the declaration's problem", st)
	}
	prov, _ := st.Metadata[result.MetaProvenance].(map[string]any)
	if prov["task_commit"] != "c-behavioural" || prov["where"] != "host" {
		t.Fatalf("provenance %v, want the task's for a host run", prov)
	}
}

func TestVerificationNotEarnedRemovesAStaleFile(t *testing.T) {
	results := t.TempDir()
	stale := filepath.Join(results, "verification.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Verification(context.Background(), testTask(t.TempDir()), VerificationOptions{Submission: results, Results: results, Out: &out, Now: time.Now})
	if err != nil {
		t.Fatalf("a stage not earned ran: %v", err)
	}
	if _, serr := os.Stat(stale); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("the stale verification.json is still there (%v)", serr)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "verification: not run -- ") || lines[1] != "verification: removed stale "+stale {
		t.Fatalf("output %q", out.String())
	}
}

func TestCheckImageCommand(t *testing.T) {
	problem := func(a string) string {
		if strings.HasPrefix(a, "/tests/verification/") && a != "/tests/verification/modules/run.sh" {
			return a + " is not in the task's assets"
		}
		return ""
	}
	if err := checkImageCommand(nil, problem); err == nil || err.Error() != "sandbox: no candidate command" {
		t.Fatalf("no command: %v", err)
	}
	if err := checkImageCommand([]string{"sh", "/tests/verification/modules/run.sh"}, problem); err != nil {
		t.Fatalf("a good command: %v", err)
	}
	err := checkImageCommand([]string{"sh", "/tests/verification/modules/typo.sh"}, problem)
	if err == nil || err.Error() != "sandbox: /tests/verification/modules/typo.sh is not in the task's assets" {
		t.Fatalf("a mistyped asset: %v", err)
	}
}

// TestHostJailUserIsUnused: stage 2's --host jail runs the submission as
// a uid no account, group or process of this machine has (issue 14: it
// drew one at random without looking), from stage 3's range, and two
// runs at once do not share it.
func TestHostJailUserIsUnused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a jail needs root")
	}
	decl := &behavioural.Declaration{TaskDir: t.TempDir()}
	helper, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var uids []int
	for range 2 {
		j, done, err := hostJail(decl, t.TempDir(), t.TempDir(), []string{helper}, cgroup.Plan{Why: "not in this test"}, engine.DefaultLimits, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		uids = append(uids, j.UID)
	}
	passwd, _ := os.ReadFile("/etc/passwd")
	for _, id := range uids {
		if id < 1_000_000_000 || id >= 2_000_000_000 {
			t.Errorf("uid %d outside [1e9, 2e9)", id)
		}
		if strings.Contains(string(passwd), fmt.Sprintf(":%d:", id)) {
			t.Errorf("uid %d is an account's", id)
		}
	}
	if uids[0] == uids[1] {
		t.Errorf("two jails share uid %d", uids[0])
	}
}

// TestHostJailClearsItsUserOnClose: what stage 2's --host jail user left
// in the machine's shared temporary folders is gone when the jail is
// closed (the break attempt of issue 14: a stage-2 program's files in
// /tmp, /var/tmp and /dev/shm outlived the ladder, so a submission could
// fill the disk or memory for every later stage and submission, and
// leave what another graded party reads; the fixture stage2-leftover).
func TestHostJailClearsItsUserOnClose(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a jail needs root")
	}
	decl := &behavioural.Declaration{TaskDir: t.TempDir()}
	helper, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	j, done, err := hostJail(decl, t.TempDir(), t.TempDir(), []string{helper}, cgroup.Plan{Why: "not in this test"}, engine.DefaultLimits, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		p := filepath.Join(d, fmt.Sprintf("srb-test-left.%d", j.UID))
		if err := os.WriteFile(p, []byte("left\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, j.UID, j.GID); err != nil {
			os.Remove(p)
			t.Fatal(err)
		}
		left = append(left, p)
	}
	done()
	for _, p := range left {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s, the jail user's, outlived the jail", p)
		}
	}
}

// As root, the results and logs folders are closed to every other user
// (0700) while the stage runs: one srb made stays so; one that was there
// before (the operator's) gets its mode back when the stage ends (restore)
// and a log line says so; a folder shared with others (writable by
// anyone, as /tmp, or / itself, through a link included) is left as it
// is and named in a note, and so is the folder that a link another user
// made leads to (a graded uid of an earlier run planting /tmp/out -> /etc).
func TestCloseToGraded(t *testing.T) {
	if os.Geteuid() != 0 {
		if notes, logs, restore := closeToGraded(t.TempDir()); notes != nil || logs != nil || restore == nil {
			t.Errorf("not root: notes %q, logs %q, want none", notes, logs)
		}
		t.Skip("only root's --host closes the results folder")
	}
	root := t.TempDir()
	open := filepath.Join(root, "out")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(root, "logs", "new")
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	toRoot := filepath.Join(root, "to-root")
	if err := os.Symlink("/", toRoot); err != nil {
		t.Fatal(err)
	}
	// A link another user made, to a folder of root's (an earlier run's
	// graded uid planting /tmp/out -> /etc).
	theirs := filepath.Join(root, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(root, "planted")
	if err := os.Symlink(theirs, planted); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(planted, 64990, 64990); err != nil {
		t.Fatal(err)
	}
	rootMode, _ := os.Stat("/")
	notes, logs, restore := closeToGraded(open, made, shared, open, toRoot, planted)
	for _, p := range []string{open, made} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700 while the stage runs", p, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("the shared folder was changed: %v", fi.Mode())
	}
	if fi, _ := os.Stat("/"); fi.Mode() != rootMode.Mode() {
		t.Errorf("/ was changed through a link: %v, was %v", fi.Mode(), rootMode.Mode())
	}
	if fi, _ := os.Stat(theirs); fi.Mode().Perm() != 0o755 {
		t.Errorf("the folder another user's link leads to was changed: %v", fi.Mode())
	}
	if len(notes) != 3 || !strings.Contains(notes[0], shared+" is shared with other users") || !strings.Contains(notes[1], toRoot+" is shared with other users") ||
		!strings.HasPrefix(notes[2], planted+" is a link made by uid 64990, so the folder it leads to was left as it is") {
		t.Errorf("notes = %q, want one naming %s, one naming %s and one naming %s", notes, shared, toRoot, planted)
	}
	if len(logs) != 1 || !strings.HasPrefix(logs[0], open+" was there before, mode 0755: closed (0700) while the stage runs") {
		t.Errorf("logs = %q, want one naming %s", logs, open)
	}
	restore()
	for p, want := range map[string]os.FileMode{open: 0o755, made: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s after the stage: %v %v, want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}

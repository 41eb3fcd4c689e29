package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// scriptFile writes a scripted driver's turns (each a list of tool calls
// name → arguments) to dir/name and returns its path.
func scriptFile(t *testing.T, dir, name string, turns ...[]toolCall) string {
	t.Helper()
	var list []any
	for _, calls := range turns {
		var tc []any
		for _, c := range calls {
			tc = append(tc, map[string]any{"name": c.name, "arguments": c.args})
		}
		list = append(list, map[string]any{"tool_calls": tc})
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// num reads a number of a decoded stage result, however the decoder
// typed it (-1 when it is not a number).
func num(v any) float64 {
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	if err != nil {
		return -1
	}
	return f
}

type toolCall struct {
	name string
	args map[string]any
}

func tryTest(name, code string) []toolCall {
	return []toolCall{{"try_test", map[string]any{"name": name, "code": code, "rationale": "checks " + name}}}
}

func reportCall(found bool, candidate, text string) []toolCall {
	if found {
		return []toolCall{{"report", map[string]any{"found": true, "candidate": candidate, "claim": text, "contract": "the usage promise"}}}
	}
	return []toolCall{{"report", map[string]any{"found": false, "notes": text}}}
}

// verificationImage finds the fixture's verification image (building and
// loading it when the engine lacks it, or images.lock does not vouch for
// it) and returns its id.
func verificationImage(t *testing.T, ctx context.Context, taskDir string, log *bytes.Buffer) string {
	t.Helper()
	docker := requireEngines(t)
	tk, problems := task.Load(taskDir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(log, "srb: "+format+"\n", args...) }
	img, err := image.FindStage(ctx, tk, result.StageVerification, docker, defaultImageBuilder(log, nil, false), logf)
	if err != nil {
		t.Fatalf("the verification image: %v\n%s", err, log.String())
	}
	return img.Ref
}

// roundsByID indexes verification.json's metadata.rounds by adversary.
func roundsByID(t *testing.T, st *result.Stage) map[string]map[string]any {
	t.Helper()
	list, _ := st.Metadata["rounds"].([]any)
	out := map[string]map[string]any{}
	for _, r := range list {
		m := r.(map[string]any)
		out[m["adversary"].(string)] = m
	}
	if len(out) != len(list) || len(out) == 0 {
		t.Fatalf("rounds %v", st.Metadata["rounds"])
	}
	return out
}

// TestVerificationInImage is srb verification (no --host, no --image) on
// the fixture task's real verification image, which it finds as images.lock
// records it, with scripted adversaries and adjudicator: each round in a
// container of its own, State A built with
// make and cc and the port with go inside it. The port exits 1 instead
// of 2 when given an argument: the usage adversary's candidate passes on
// State A, fails on the port, holds three times and is ruled in scope, so
// the round is broken. The open adversary's candidate leaves a process
// behind and looks around: both runs pass, the leftover is reaped, there
// is no network, and nothing it can see names its tree (no role, no
// tree path in PWD or OLDPWD, no contract variable). The other four
// rounds report nothing and survive.
func TestVerificationInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two trees in containers of the verification image")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	var errOut bytes.Buffer
	ref := verificationImage(t, ctx, taskDir, &errOut)

	sub := filepath.Join(t.TempDir(), "sub")
	if err := copyTree(filepath.Join("..", "..", "testdata", "submissions", "tally-go"), sub); err != nil {
		t.Fatal(err)
	}
	mainGo := filepath.Join(sub, "main.go")
	b, err := os.ReadFile(mainGo)
	if err != nil || !bytes.Contains(b, []byte("os.Exit(2)")) {
		t.Fatalf("the port moved (%v); update the test", err)
	}
	os.WriteFile(mainGo, bytes.Replace(b, []byte("os.Exit(2)"), []byte("os.Exit(1)"), 1), 0o644)

	dir := t.TempDir()
	look := `sleep 600 >/dev/null 2>&1 &
ls /sys/class/net; env; echo "pwd=$(pwd)"; stat -c 'cands=%a %u' /srb/candidates; exit 0`
	opts := &VerificationOptions{IO: IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
		VerificationOptions: stages.VerificationOptions{Now: time.Now, Lookup: func(string) (string, bool) { return "", false },
			Submission: sub, Results: t.TempDir(), Original: filepath.Join(taskDir, "..", "..", "statea", "tally-1.0"),
			Force:     true,
			Adversary: StageDriver{Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "nothing.json", reportCall(false, "", "nothing to try"))}},
			Adversaries: map[string]StageDriver{
				"a05-usage": {Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "usage.json",
					tryTest("usage", `"$TALLY" x 2>/dev/null; [ $? -eq 2 ]`), reportCall(true, "usage", "tally exits 1, not 2, when given an argument"))}},
				"a06-open": {Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "open.json",
					tryTest("look", look), reportCall(false, "", "looked around"))}},
			},
			Adjudicator: StageDriver{Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "rule.json",
				[]toolCall{{"rule", map[string]any{"in_scope": true, "reason": "[usage] is promised"}}})}},
		},
	}
	start := time.Now()
	if err := runVerification(ctx, opts); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	t.Logf("six rounds in the image in %s", grade.RoundDuration(time.Since(start)))
	st, err := result.ReadStage(filepath.Join(opts.Results, "verification.json"))
	if err != nil {
		t.Fatal(err)
	}
	// What srb added to the containers' limits: on this project's cgroup
	// v1 machine the TCP buffer limit; the OOM guard where srb has
	// CAP_SYS_RESOURCE (it has not here), else why not.
	if cl, _ := st.Metadata["container_limits"].(map[string]any); cl == nil || cl["tcp_limit"] == nil || cl["oom_guard"] == nil {
		t.Errorf("metadata.container_limits %v", st.Metadata["container_limits"])
	} else {
		t.Logf("metadata.container_limits %v", cl)
		// As root on the engine's machine srb hides every process of
		// another uid in the containers' /proc (engine.Hardening.ProcHidden).
		if os.Geteuid() == 0 && cl["proc_hidden"] != "yes" {
			t.Errorf("metadata.container_limits.proc_hidden %v, want yes (srb is root on the engine's machine)", cl["proc_hidden"])
		}
	}
	if st.Metadata["where"] != "container" {
		t.Errorf("metadata.where %v", st.Metadata["where"])
	}
	if im, _ := st.Metadata["image"].(map[string]any); im["id"] != ref || im["ref"] != "srb/lang90-tally-c-to-go:verification" || im["digest"] == nil {
		t.Errorf("metadata.image %v, want the task's image srb/lang90-tally-c-to-go:verification, id %s, with its digest", st.Metadata["image"], ref)
	}
	got := map[string]string{}
	for _, c := range st.Checks {
		got[c.ID] = c.Verdict
	}
	want := map[string]string{"a01-whitespace": "pass", "a02-binary": "pass", "a03-large": "pass", "a04-lines": "pass", "a05-usage": "fail", "a06-open": "pass"}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: verdict %q, want %q\n%s", id, got[id], v, errOut.String())
		}
	}
	if st.Status != result.StatusOK || num(st.Metadata["broken"]) != 1 || num(st.Metadata["survived"]) != 5 || num(st.Metadata["errored"]) != 0 {
		t.Errorf("status %s, broken %v, survived %v, errored %v", st.Status, st.Metadata["broken"], st.Metadata["survived"], st.Metadata["errored"])
	}
	rounds := roundsByID(t, st)
	adj, _ := rounds["a05-usage"]["adjudication"].(map[string]any)
	if adj["decision"] != "upheld" || num(adj["reproduced"]) != 3 || adj["in_scope"] != true {
		t.Errorf("a05's adjudication %v", adj)
	}
	if n := rounds["a05-usage"]["candidate_runs"]; num(n) != 11 {
		t.Errorf("a05: %v candidate runs, want 11 (the try's pair, then three reruns of the submission and six of State A)", n)
	}
	cands, _ := rounds["a06-open"]["candidates"].([]any)
	if len(cands) != 1 {
		t.Fatalf("a06's candidates %v", cands)
	}
	runs, _ := cands[0].(map[string]any)["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("a06's runs %v", runs)
	}
	for _, r := range runs {
		m := r.(map[string]any)
		out, _ := m["stdout"].(string)
		t.Logf("a06's candidate on the %s:\n%s", m["target"], out)
		if m["passed"] != true || m["reaped"] != true {
			t.Errorf("%s run: passed %v, reaped %v\n%s%s", m["target"], m["passed"], m["reaped"], out, m["stderr"])
		}
		if !strings.Contains(out, "lo\n") || strings.Contains(out, "eth0") {
			t.Errorf("%s run: the candidate's network interfaces are not just lo:\n%s", m["target"], out)
		}
		// The candidates' folder is the candidate user's alone, so a
		// program the launcher runs cannot list it.
		if !strings.Contains(out, "cands=700 65532\n") {
			t.Errorf("%s run: the candidates' folder is not the candidate user's alone:\n%s", m["target"], out)
		}
		if !strings.Contains(out, "pwd=/srb/run/") || !strings.Contains(out, "TALLY=/srb/run/") {
			t.Errorf("%s run: not in a scratch folder of its own:\n%s", m["target"], out)
		}
		for _, leak := range []string{"original", "submission", "workspace", "/srb/trees", "/srb/pristine", "/srb/view", "OLDPWD", "SRB_TARGET", "SRB_CANDIDATE="} {
			if strings.Contains(out, leak) {
				t.Errorf("%s run: the candidate sees %q:\n%s", m["target"], leak, out)
			}
		}
	}
}

// roleProbe is a candidate that tries to learn which tree it runs against
// from /proc: every process's argument list and environment (its parent's
// above all, the process that ran it: the task's runner got the role as
// its last argument), the toolbox's views (named after the trees) and the
// runner's file (which it could change to tell it the role next time). A
// decoy it starts itself, whose argument list names a role, shows its scan
// would find one. It prints one line per finding, and exits 0.
const roleProbe = `(exec -a srb-decoy-original sleep 60) &
decoy=$!
sleep 0.3
n=0 envs=0 found= seen=no
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	c=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) && n=$((n+1))
	e=$(tr '\0' ' ' <"$p/environ" 2>/dev/null) && envs=$((envs+1))
	case "$c $e" in
	*original* | *submission* | *workspace*)
		if [ "$pid" = "$decoy" ]; then seen=yes; else found="$found $pid: $c $e;"; fi ;;
	esac
done
echo "uid=$(id -u)"
echo "cmdlines=$n environs=$envs decoy=$seen"
echo "found=[$found]"
echo "parent=$(tr '\0\n' '  ' </proc/$PPID/cmdline)"
echo "parent-environ=$(tr '\0' '\n' </proc/$PPID/environ 2>/dev/null | grep -c =)"
cat /proc/1/environ >/dev/null 2>&1 && echo "init-environ=readable" || echo "init-environ=unreadable"
ls /srb/view >/dev/null 2>&1 && echo "views=readable" || echo "views=unreadable"
[ -w /tests/verification/modules/candidate/run-candidate.sh ] && echo "runner=writable" || echo "runner=read-only"
echo "nonewprivs=$(awk '$1 == "NoNewPrivs:" {print $2}' /proc/self/status)"
echo "trees=$(ls /srb/trees 2>/dev/null | wc -l)"
exit 0`

// TestVerificationHidesTheRole runs srb verification in the fixture's real
// verification image with a candidate that tries to learn its role from
// /proc ([roleProbe]): it runs as the candidate user (not root), can read
// every process's argument list and its parent's environment, and its
// decoy is found, yet no process's argument list or readable environment
// names a role (the runner exec'd the candidate's runner before it
// started); root's environment, the views and the runner's file are out of
// its reach, no_new_privs is set, and its container holds its own tree
// only. Both runs pass: the round survives.
// The same probe run by a runner that forks the candidate instead finds
// the role in its parent's argument list: the probe can fail.
func TestVerificationHidesTheRole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two trees in containers of the verification image")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	var errOut bytes.Buffer
	ref := verificationImage(t, ctx, taskDir, &errOut)
	sub, original := filepath.Join("..", "..", "testdata", "submissions", "tally-go"), filepath.Join(taskDir, "..", "..", "statea", "tally-1.0")

	dir := t.TempDir()
	opts := &VerificationOptions{IO: IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
		VerificationOptions: stages.VerificationOptions{Now: time.Now, Lookup: func(string) (string, bool) { return "", false },
			Submission: sub, Results: t.TempDir(), Original: original, Force: true,
			Adversary: StageDriver{Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "nothing.json", reportCall(false, "", "nothing to try"))}},
			Adversaries: map[string]StageDriver{"a06-open": {Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "probe.json",
				tryTest("probe", roleProbe), reportCall(false, "", "looked for the role"))}}},
			Adjudicator: StageDriver{Driver: models.DriverScripted, Scripts: []string{scriptFile(t, dir, "rule.json",
				[]toolCall{{"rule", map[string]any{"in_scope": false, "reason": "never asked"}}})}},
		},
	}
	if err := runVerification(ctx, opts); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	st, err := result.ReadStage(filepath.Join(opts.Results, "verification.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Metadata["where"] != "container" || st.Status != result.StatusOK || num(st.Metadata["survived"]) != 6 {
		t.Fatalf("where %v, status %s, survived %v\n%s", st.Metadata["where"], st.Status, st.Metadata["survived"], errOut.String())
	}
	cands, _ := roundsByID(t, st)["a06-open"]["candidates"].([]any)
	if len(cands) != 1 {
		t.Fatalf("a06's candidates %v", cands)
	}
	runs, _ := cands[0].(map[string]any)["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("a06's runs %v", runs)
	}
	targets := map[string]bool{}
	for _, r := range runs {
		m := r.(map[string]any)
		target, _ := m["target"].(string)
		targets[target] = true
		out, _ := m["stdout"].(string)
		t.Logf("the probe on the %s:\n%s", target, out)
		if m["passed"] != true {
			t.Errorf("%s run: exit %v\n%s%s", target, m["exit_code"], out, m["stderr"])
		}
		lines := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok && !strings.Contains(k, " ") {
				lines[k] = v
			}
		}
		// trees=1: the tree's container holds its own tree only.
		for k, want := range map[string]string{"uid": "65532", "found": "[]", "init-environ": "unreadable",
			"views": "unreadable", "runner": "read-only", "nonewprivs": "1", "trees": "1"} {
			if lines[k] != want {
				t.Errorf("%s run: %s=%q, want %q\n%s", target, k, lines[k], want, out)
			}
		}
		// The scan worked: it read argument lists and environments, and
		// found the decoy; the parent it read is the candidate's runner.
		if !strings.Contains(out, "decoy=yes") || strings.Contains(out, "cmdlines=0 ") || strings.Contains(out, "environs=0 ") {
			t.Errorf("%s run: the probe's scan did not work:\n%s", target, out)
		}
		if !strings.Contains(lines["parent"], "candidate-runner") || lines["parent-environ"] == "0" || lines["parent-environ"] == "" {
			t.Errorf("%s run: the probe did not read its parent's argument list and environment:\n%s", target, out)
		}
		for _, leak := range []string{"original", "submission", "workspace"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s run: the probe learnt %q:\n%s", target, leak, out)
			}
		}
	}
	if !targets["original"] || !targets["submission"] {
		t.Errorf("the probe ran on %v, want both trees", targets)
	}

	// A runner that forks the candidate (and so stays its parent, the
	// role last in its argument list) gives the role away.
	sb, err := verification.NewContainer(ctx, verification.ContainerConfig{Engine: requireEngines(t), Image: ref,
		Original: original, Submission: sub, Timeout: time.Minute, Work: t.TempDir(),
		Command: []string{"/bin/bash", "-c", `cd "$SRB_WORK" && /bin/bash "$SRB_CANDIDATE" </dev/null; exit $?`, "forking-runner"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	run := sb.Execute(ctx, &verification.Candidate{Name: "probe", Filename: "probe", Code: roleProbe}, verification.RoleSubmission)
	if !run.Passed || !strings.Contains(run.Stdout, "forking-runner submission") || !strings.Contains(run.Stdout, "decoy=yes") {
		t.Errorf("under a forking runner the probe did not find its role (exit %d):\n%s%s", run.ExitCode, run.Stdout, run.Stderr)
	}
}

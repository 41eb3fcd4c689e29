package verification

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// cachingRunner stands in for a task's candidate runner that builds each
// tree once and caches the build under SRB_WORK (as the fixture task's
// run-candidate.sh does): it counts its builds in SRB_WORK/builds.
const cachingRunner = `mkdir -p "$SRB_WORK/build" || exit 70
if [ ! -e "$SRB_WORK/build/.built" ]; then
	echo honest >"$SRB_WORK/build/prog" && echo x >>"$SRB_WORK/builds" && touch "$SRB_WORK/build/.built" || exit 71
fi
exec /bin/bash "$SRB_CANDIDATE" </dev/null`

// rerunProbe is a candidate (or a defective port's program) that tries to
// tell its later runs on the same tree that it ran: it counts its runs in
// SRB_WORK, HOME, TMPDIR, the working tree and the folder above SRB_WORK,
// prints the cached build and then overwrites it, and leaves a process
// behind. Every run of it must print the same thing.
const rerunProbe = `files="$SRB_WORK/count $HOME/count ${TMPDIR:-$HOME}/count.tmp $PWD/count"
# Above SRB_WORK: the tree's own folder on --host (root's /srb in the image).
[ -n "${PROBE_HOST:-}" ] && files="$files $SRB_WORK/../count.up /tmp/srb-rerun-probe-$(id -u)"
for f in $files; do
	n=$(cat "$f" 2>/dev/null || echo 0)
	echo "$(basename "$f")=$n"
	echo $((n + 1)) >"$f"
done
echo "builds=$(wc -l <"$SRB_WORK/builds")"
echo "build=$(cat "$SRB_WORK/build/prog")"
echo poisoned >"$SRB_WORK/build/prog"
[ -n "${PROBE_HOST:-}" ] && setsid sleep 4244 </dev/null >/dev/null 2>&1 &
exit 0`

// wantFirstRun is what rerunProbe prints on a side's first run: nothing
// counted yet, one build (the warm-up's), the build as it was made; uid
// names the user for the /tmp count ("" when it is not probed).
func wantFirstRun(uid string) string {
	s := "count=0\ncount=0\ncount.tmp=0\ncount=0\n"
	if uid != "" {
		s += "count.up=0\nsrb-rerun-probe-" + uid + "=0\n"
	}
	return s + "builds=1\nbuild=honest\n"
}

// Every run of a side on --host (engine.Local), the adjudicator's reruns
// included, starts from the same state: what a run leaves in its SRB_WORK
// (its cached build overwritten), HOME, TMPDIR, working tree and the
// folder above SRB_WORK, and in /tmp, is not seen by the next run of the
// same side (the rerun attack: a defect that hides in its reruns, issue
// 14). The build is made once, by the warm-up, and survives in the
// snapshot.
func TestHostRunsOfASideStartAlike(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a user per tree (and /tmp cleared per uid) needs root")
	}
	h := hostContainer(t, []string{"/bin/bash", "-c", cachingRunner, "runner"}, func(cfg *ContainerConfig) {
		cfg.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "PROBE_HOST=1"}
	})
	c := &Candidate{Name: "probe", Filename: "probe.sh", Code: rerunProbe}
	uid := func(role string) string { return strconv.Itoa(sessionUID(t, h.sides[role].sess)) }
	for i := range 3 {
		for _, role := range []string{RoleOriginal, RoleSubmission} {
			start := time.Now()
			r := h.Execute(context.Background(), c, role)
			t.Logf("%s run %d: %.3f s in all, %.3f s the command", role, i+1, time.Since(start).Seconds(), r.DurationSec)
			if !r.Passed || r.Harness != "" {
				t.Fatalf("%s run %d: exit %d %s\n%s%s", role, i+1, r.ExitCode, r.Harness, r.Stdout, r.Stderr)
			}
			if want := wantFirstRun(uid(role)); r.Stdout != want {
				t.Errorf("%s run %d saw what an earlier run left:\n%s\nwant\n%s", role, i+1, r.Stdout, want)
			}
		}
	}
	// After a Reset the sides are warmed up again: still one build each.
	if err := h.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := h.Execute(context.Background(), c, RoleSubmission); r.Stdout != wantFirstRun(uid(RoleSubmission)) {
		t.Errorf("after Reset: exit %d %s\n%s%s", r.ExitCode, r.Harness, r.Stdout, r.Stderr)
	}
}

// The same in the image (through the engine fake, whose container is a
// folder): every run of a side starts from the snapshot its warm-up left,
// copied out to the grader's side and restored into the tree's own
// container by the session's verbs (the working tree and SRB_WORK deleted
// and copied in again, the candidate user's), so a run cannot change what
// the next run of the side sees.
func TestContainerRunsOfASideStartAlike(t *testing.T) {
	needTools(t)
	fake := &engine.Fake{ExecFunc: hostExec(t, t.TempDir())}
	rec := &recStarter{inner: fake}
	c, err := NewContainer(context.Background(), ContainerConfig{Engine: rec, Image: "img", Original: stateA, Submission: goPort,
		Command: []string{"/bin/bash", "-c", cachingRunner, "runner"}, Timeout: time.Minute, Work: t.TempDir(),
		Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cand := &Candidate{Name: "probe", Filename: "probe.sh", Code: rerunProbe}
	for i := range 3 {
		for _, role := range []string{RoleOriginal, RoleSubmission} {
			r := c.Execute(context.Background(), cand, role)
			if !r.Passed || r.Harness != "" {
				t.Fatalf("%s run %d: exit %d %s\n%s%s", role, i+1, r.ExitCode, r.Harness, r.Stdout, r.Stderr)
			}
			if want := wantFirstRun(""); r.Stdout != want {
				t.Errorf("%s run %d saw what an earlier run left:\n%s\nwant\n%s", role, i+1, r.Stdout, want)
			}
		}
	}
	// The snapshot was copied out once per side, and each of the side's
	// three runs restored from it in the tree's own container.
	for _, rs := range rec.sessions {
		outs, restores := 0, 0
		for _, st := range rs.Steps() {
			switch {
			case st.verb == "copyout" && st.path == "/srb/run":
				outs++
			case st.verb == "copyin" && st.path == "/srb/run" && strings.Contains(st.host, "/snap/"+rs.spec.Labels["srb.tree"]+"/"):
				if st.user != CandidateUser {
					t.Errorf("SRB_WORK restored as %q's", st.user)
				}
				restores++
			}
		}
		if outs != 1 || restores != 3 {
			t.Errorf("container %s: %d snapshot(s) and %d restore(s), want 1 and 3", rs.spec.Labels["srb.tree"], outs, restores)
		}
	}
}

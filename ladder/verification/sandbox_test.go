package verification

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/hostuser"
)

// isolationProbe is a candidate that tries to leave something for the
// other tree's runs and to find what the other tree's runs left: a file in
// its SRB_WORK, HOME, TMPDIR and in /tmp and /dev/shm, a process started
// with setsid, and a look at every session folder beside its own (on
// --host each tree's sandbox is a folder /tmp/srb-host-* of its own). It
// prints what it found, one key=value a line.
const isolationProbe = `tag=srb-isolation-probe
echo "uid=$(id -u)"
found=
sessions="$SRB_WORK/../../../srb-host-*/srb"
for f in /tmp/$tag /dev/shm/$tag $sessions/run/$tag $sessions/home/$tag $sessions/tmp/$tag $sessions/trees/*/$tag; do
	[ -e "$f" ] && found="$found $f($(cat "$f" 2>/dev/null || echo unreadable))"
done
echo "found=[$found]"
pgrep -f "sleep 4242" >/dev/null && echo "leftover=running" || echo "leftover=none"
for d in "$SRB_WORK" "$HOME" "$TMPDIR" /tmp /dev/shm; do echo "$(id -u)" >"$d/$tag"; done
echo "others=$(for d in $sessions/; do [ -d "$d" ] && ! [ "$d" -ef "$SRB_WORK/.." ] && echo "$d"; done | wc -l)"
setsid sleep 4242 </dev/null >/dev/null 2>&1 &
exit 0`

// With srb as root and the network denied, each candidate run has a
// network namespace of its own: a TCP socket the original's run leaves in
// TIME_WAIT (it outlives the run's processes) is not in the submission's
// run's /proc/net/tcp, so it cannot tell one tree's runs from the other's
// by counting them (the net-role attack, issue 14). Its uid may have at
// most HostProcessLimit tasks. So has the run tool's command.
func TestHostRunsHaveTheirOwnNetwork(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("separate users per tree need root")
	}
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip("no network namespaces here:", err)
	}
	cmd := []string{"/bin/bash", "-c", `cd "$SRB_WORK" && exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	c := &Candidate{Name: "netns", Filename: "netns.sh", Code: "readlink /proc/self/ns/net; wc -l < /proc/net/tcp; ulimit -u"}
	run, _ := h.RunTool()
	res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/readlink", "/proc/self/ns/net"},
		Dir: h.views[RoleSubmission].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(string(res.Stdout)) == host {
		t.Errorf("run tool: want a network namespace of its own (host %s): %v, exit %d, %s%s", host, err, res.ExitCode, res.Stdout, res.Stderr)
	}
	// A namespace's inode number may be reused once it is gone: that the
	// submission's run sees no socket is the test, not the number.
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		r := h.Execute(context.Background(), c, role)
		if !r.Passed || r.Harness != "" {
			t.Fatalf("%s run: exit %d %s\n%s%s", role, r.ExitCode, r.Harness, r.Stdout, r.Stderr)
		}
		lines := strings.Fields(r.Stdout)
		if len(lines) != 3 || lines[0] == host || lines[1] != "1" {
			t.Errorf("%s run: want a fresh network namespace with no TCP socket (host %s), got %q", role, host, r.Stdout)
		}
		// A fork bomb stops at HostProcessLimit tasks of its uid.
		if len(lines) == 3 && lines[2] != strconv.Itoa(HostProcessLimit) {
			t.Errorf("%s run: ulimit -u is %s, want %d", role, lines[2], HostProcessLimit)
		}
	}
}

// With srb as root, each tree's candidates run as a uid of their own
// (drawn at random, never root), in a session folder only that uid may
// enter: what a run on the original leaves (files in its SRB_WORK, HOME
// and TMPDIR, in /tmp and /dev/shm, a process started with setsid) is gone
// or out of reach when the submission's run starts, and the run tool runs
// as a third and a fourth user, one per view.
func TestHostIsolatesTheTrees(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("separate users per tree need root")
	}
	cmd := []string{"/bin/bash", "-c", `cd "$SRB_WORK" && exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	uo, us := sessionUID(t, h.sides[RoleOriginal].sess), sessionUID(t, h.sides[RoleSubmission].sess)
	to, tw := sessionUID(t, h.views[RoleOriginal].sess), sessionUID(t, h.views[RoleSubmission].sess)
	if uids := map[int]bool{uo: true, us: true, to: true, tw: true}; len(uids) != 4 || min(uo, us, to, tw) < hostuser.Base {
		t.Fatalf("uids: original %d, submission %d, run tool %d and %d", uo, us, to, tw)
	}
	c := &Candidate{Name: "probe", Filename: "probe.sh", Code: isolationProbe}
	orig := h.Execute(context.Background(), c, RoleOriginal)
	sub := h.Execute(context.Background(), c, RoleSubmission)
	for _, r := range []CandidateRun{orig, sub} {
		if !r.Passed || r.Harness != "" {
			t.Fatalf("%s run: exit %d %s\n%s%s", r.Target, r.ExitCode, r.Harness, r.Stdout, r.Stderr)
		}
		if !r.Reaped {
			t.Errorf("%s run: the setsid process was not reaped", r.Target)
		}
	}
	if !strings.Contains(orig.Stdout, "uid="+strconv.Itoa(uo)+"\n") || !strings.Contains(sub.Stdout, "uid="+strconv.Itoa(us)+"\n") {
		t.Errorf("uids:\n%s\n%s", orig.Stdout, sub.Stdout)
	}
	for _, want := range []string{"found=[]", "leftover=none", "others=0"} {
		if !strings.Contains(sub.Stdout, want+"\n") {
			t.Errorf("the submission's run did not print %s:\n%s", want, sub.Stdout)
		}
	}
	for _, p := range []string{"/tmp/srb-isolation-probe", "/dev/shm/srb-isolation-probe"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is left after the runs", p)
		}
	}
	// The run tool: a user of each view's own, in that view, HOME its own.
	run, getenv := h.RunTool()
	for _, c := range []struct {
		role string
		uid  int
	}{{RoleOriginal, to}, {RoleSubmission, tw}} {
		v := h.views[c.role]
		res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", "id -u; touch made; echo $HOME"},
			Dir: v.shown(), Env: []string{"PATH=/usr/bin:/bin", "HOME=" + getenv("HOME")}, Timeout: time.Minute})
		want := strconv.Itoa(c.uid) + "\n" + v.sess.Path(containerHome) + "\n"
		if err != nil || res.ExitCode != 0 || string(res.Stdout) != want {
			t.Errorf("run tool in the %s view: %v, exit %d, %q (want %q) %s", c.role, err, res.ExitCode, res.Stdout, want, res.Stderr)
		}
		if _, err := os.Stat(filepath.Join(v.shown(), "made")); err != nil {
			t.Errorf("the run tool could not write in the %s view: %v", c.role, err)
		}
	}
	if _, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/true"}, Dir: h.work, Timeout: time.Minute}); err == nil {
		t.Error("the run tool ran a command outside both views")
	}
}

// With srb as root, the candidate and the folder it is placed in are the
// candidate user's alone (0700), on every placement: a program under
// test run apart as another uid of the candidate user's group (the
// launcher) can neither read a candidate's source (its expectations) nor
// list the folder (the candidates' names and sizes). Before, the folder
// was made by the copy, root's and 0755.
func TestHostCandidateFolderIsTheCandidateUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the candidate user is a uid of its own only as root")
	}
	cmd := []string{"/bin/bash", "-c", `exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	uid := sessionUID(t, h.sides[RoleSubmission].sess)
	probe := `stat -c '%a %u' "$(dirname "$SRB_CANDIDATE")" "$SRB_CANDIDATE"`
	want := fmt.Sprintf("700 %d\n700 %d\n", uid, uid)
	for i, name := range []string{"first.sh", "second.sh"} {
		r := h.Execute(context.Background(), &Candidate{Name: name, Filename: name, Code: probe}, RoleSubmission)
		if r.Harness != "" || r.Stdout != want {
			t.Errorf("placement %d: %q (want %q), exit %d %s%s", i+1, r.Stdout, want, r.ExitCode, r.Harness, r.Stderr)
		}
	}
}

// With --host as root, a command the run tool runs in the workspace view
// (the submission's Makefile run by the adversary's make, say) must not
// reach the original view, its HOME or its processes: otherwise the
// submission's code could rewrite what the adversary runs of State A (its
// tests, its build), so that State A seems to fail where the submission
// does and no test breaks through. Before, one run-tool user owned both
// views and one HOME. Each view is a session of its own (engine.Local).
func TestHostRunToolViewsAreApart(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the run tool has users of its own only as root")
	}
	cmd := []string{"/bin/bash", "-c", `exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	orig := h.views[RoleOriginal].shown()
	before, err := os.ReadFile(filepath.Join(orig, "tally.c"))
	if err != nil {
		t.Fatal(err)
	}
	run, _ := h.RunTool()
	attack := fmt.Sprintf(`o=%q; oh=%q
echo forged > "$o/tally.c" 2>/dev/null && echo wrote-view
echo forged > "$o/planted" 2>/dev/null && echo planted-view
ls "$o" >/dev/null 2>&1 && echo listed-view
mkdir -p "$oh/.cache" 2>/dev/null && echo wrote-home
mkdir -p "$HOME/.cache/go-build" && echo poisoned > "$HOME/.cache/go-build/entry"
exit 0`, orig, h.views[RoleOriginal].sess.Path(containerHome))
	res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", attack},
		Dir: h.views[RoleSubmission].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("attack: %v, exit %d, %s%s", err, res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "" {
		t.Errorf("the workspace view's command reached the original view: %q", got)
	}
	after, err := os.ReadFile(filepath.Join(orig, "tally.c"))
	if err != nil || string(after) != string(before) {
		t.Errorf("the original view's tally.c changed (%v)", err)
	}
	// The original view's commands see a HOME of their own, with nothing
	// the workspace's command left in its HOME.
	res, err = run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", `find "$HOME" -mindepth 1 | wc -l`},
		Dir: orig, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "0" {
		t.Errorf("the original view's HOME holds %q (%v)", res.Stdout, err)
	}
}

// With --host as root, what the run tool executes (a submission's Makefile
// run by the adversary's `make`, say) runs as the run tool's user in the
// views, which it owns: it must not change what the toolbox's file tools
// show the adversary (list_dir, fetch_source, search, diff), or the
// submission's code could hide its defect from the adversary's reading. The
// file tools read root's copies, as in the image, where they read host
// copies the view container cannot reach; with --host the grader's copies
// in the sandbox's work folder, which no session can reach.
func TestHostRunToolCannotRewriteWhatTheFileToolsRead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the run tool has a user of its own only as root")
	}
	cmd := []string{"/bin/bash", "-c", `exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	want, err := os.ReadFile(filepath.Join(goPort, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := agent.NewToolbox(h.Roots(), agent.ToolboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	run, getenv := h.RunTool()
	for _, r := range h.Roots() {
		shown := tb.RootDir(r.Name)
		res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", "echo forged > main.go; echo forged > planted; rm -f README"},
			Dir: shown, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + getenv("HOME")}, Timeout: time.Minute})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run tool in %s: %v, exit %d, %s%s", shown, err, res.ExitCode, res.Stdout, res.Stderr)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, "planted")); err == nil {
			t.Errorf("%s: a file the run tool wrote shows in the file tools' tree %s", r.Name, r.Dir)
		}
	}
	got, err := os.ReadFile(filepath.Join(h.Roots()[1].Dir, "main.go"))
	if err != nil || string(got) != string(want) {
		t.Errorf("the file tools read the submission's main.go as %q (%v), want it as submitted", got, err)
	}
	if _, err := os.Stat(filepath.Join(h.Roots()[1].Dir, "README")); err != nil {
		t.Errorf("the run tool removed README from the file tools' tree: %v", err)
	}
	// The run tool still works in its own views, and Reset restores them.
	if err := h.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(h.views[RoleSubmission].shown(), "main.go")); err != nil || string(b) != string(want) {
		t.Errorf("after Reset the run tool's view holds %q (%v)", b, err)
	}
}

// A candidate run's output (the submission's program printing without end,
// say) is kept only as its last MaxRunTail bytes: nothing of it grows on
// the grader's disk while it runs, and the tail is the output's end.
func TestHostRunOutputIsBounded(t *testing.T) {
	cmd := []string{"/bin/bash", "-c", `exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	h := hostContainer(t, cmd)
	c := &Candidate{Name: "loud", Filename: "loud.sh", Code: "head -c 33554432 /dev/zero | tr '\\0' x; echo; echo the-end; head -c 33554432 /dev/zero >&2; sleep 2"}
	done := make(chan CandidateRun)
	go func() { done <- h.Execute(context.Background(), c, RoleSubmission) }()
	var largest int64
	for {
		select {
		case r := <-done:
			if largest > 4*MaxRunTail {
				t.Errorf("a file of %d bytes grew in the sandbox's folder while the candidate ran", largest)
			}
			if !r.Passed || !strings.HasSuffix(r.Stdout, "x\nthe-end\n") || len(r.Stdout) != MaxRunTail || len(r.Stderr) != MaxRunTail {
				t.Errorf("run: passed %v, stdout %d bytes ending %q, stderr %d bytes", r.Passed, len(r.Stdout), r.Stdout[max(0, len(r.Stdout)-20):], len(r.Stderr))
			}
			return
		case <-time.After(50 * time.Millisecond):
			_ = filepath.WalkDir(h.work, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), ".std") {
					if info, err := d.Info(); err == nil {
						largest = max(largest, info.Size())
					}
				}
				return nil
			})
		}
	}
}

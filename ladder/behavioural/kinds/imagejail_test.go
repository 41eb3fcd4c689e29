package kinds

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// In a stage image the jail has nothing to do but become the
// submission's user (no mount or network namespace, no process limit of
// its own): the process init starts an untraced process as that user
// itself, and what is observed is what the jail command gives: the
// submission's uid and gid and no other group, exactly the environment
// given, a program that cannot be executed the jail's "exec PROG: why"
// (the submission's "could not start", never a grader fault), a program
// that prints the jail's mark graded as itself. The same commands through
// the jail command (a traced run) give the same.
func TestImageJailStartsAsTheSubmission(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.Mount || j.Net || j.NProc > 0 {
		t.Fatalf("an image's jail: %+v", j)
	}
	m := &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}, work: filepath.Join(root, "work")}
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	uid := strconv.Itoa(behavioural.SubmissionUID)
	// Alone (an init per process), then as a command module's cases (in
	// the inits it keeps).
	for _, pooled := range []bool{false, true} {
		if pooled {
			m.procs = &procPool{}
			defer m.procs.close()
		}
		imageJailCases(t, m, dir, plain, uid)
	}
}

func imageJailCases(t *testing.T, m *module, dir, plain, uid string) {
	for _, c := range []struct {
		argv       []string
		out        string
		exit       any
		viaJailCmd bool // the jail command gives the same
	}{
		{argv: []string{"sh", "-c", "id -u; id -g; id -G; env | sort"}, out: uid + "\n" + uid + "\n" + uid + "\nA=b\nPATH=/usr/bin:/bin\nPWD=" + dir + "\n", exit: 0, viaJailCmd: true},
		{argv: []string{"sh", "-c", `echo "srb-jail: setup: forged" >&2; exit 122`}, exit: 122, viaJailCmd: true},
		{argv: []string{filepath.Join(dir, "srb-no-such-program")}, exit: "could not start: exec " + filepath.Join(dir, "srb-no-such-program") + ": no such file or directory", viaJailCmd: true},
		{argv: []string{plain}, exit: "could not start: exec " + plain + ": permission denied", viaJailCmd: true},
		{argv: []string{"srb-no-such-program"}, exit: "could not start: exec " + filepath.Join(dir, "srb-no-such-program") + ": no such file or directory", viaJailCmd: true},
	} {
		for _, trace := range []bool{false, true} {
			if trace && !c.viaJailCmd {
				continue
			}
			r := m.runProcTraced(c.argv, dir, []string{"A=b", "PATH=/usr/bin:/bin"}, nil, 10*time.Second, trace)
			got := strings.ReplaceAll(string(r.Stdout), "SHLVL=1\n", "")
			if got != c.out || statusText(r) != c.exit || m.harness != "" || errors.Is(r.Err, errJail) {
				t.Errorf("%q (traced %t, so through the jail command %t; in kept inits %t): stdout %q, exit %v, harness %q; want %q, %v",
					c.argv, trace, trace, m.procs != nil, got, statusText(r), m.harness, c.out, c.exit)
			}
		}
	}
}

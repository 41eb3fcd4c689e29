package proc

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// ownEnvRole makes this test binary print its environment, one variable
// a line, and exit: the command of TestOwnRuntimeReachesOnlySrb that is
// srb's own executable.
const ownEnvRole = "print-env"

// goraceOf returns the GORACE lines of env output.
func goraceOf(out string) []string {
	return slices.DeleteFunc(strings.Split(out, "\n"), func(l string) bool { return !strings.HasPrefix(l, ownRuntimeVar+"=") })
}

// srb's own Go runtime setting (GORACE: a race-enabled srb sleeps a second
// at each exit without atexit_sleep_ms=0) reaches the init and serve
// processes and a command whose program is this executable, and no other
// command; a command's own GORACE is its own, whichever the program, and
// neither it nor its GODEBUG sets the init's runtime (attack review of
// 2026-12-05: a command's GORACE lengthened its init's exit, its GODEBUG
// traced the init).
func TestOwnRuntimeReachesOnlySrb(t *testing.T) {
	if os.Getenv(helperEnv) == ownEnvRole {
		fmt.Println(strings.Join(os.Environ(), "\n"))
		os.Exit(0)
	}
	const own = "GORACE=atexit_sleep_ms=0 history_size=2"
	t.Setenv(ownRuntimeVar, strings.TrimPrefix(own, ownRuntimeVar+"="))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		spec Spec
		want []string
	}{
		{"another program", Spec{Argv: []string{"sh", "-c", "sleep 0.5; env"}, Env: []string{"PATH=/usr/bin:/bin"}}, nil},
		{"another program with its own", Spec{Argv: []string{"sh", "-c", "sleep 0.5; env"}, Env: []string{"PATH=/usr/bin:/bin", "GORACE=history_size=1", "GODEBUG=inittrace=1"}}, []string{"GORACE=history_size=1"}},
		{"srb's own executable", Spec{Path: self, Argv: []string{self, "-test.run=^TestOwnRuntimeReachesOnlySrb$"}, Env: []string{helperEnv + "=" + ownEnvRole}}, []string{own}},
		{"srb's own executable with its own", Spec{Path: self, Argv: []string{self, "-test.run=^TestOwnRuntimeReachesOnlySrb$"}, Env: []string{helperEnv + "=" + ownEnvRole, "GORACE=history_size=1"}}, []string{"GORACE=history_size=1"}},
	}
	check := func(t *testing.T, out string, want []string) {
		t.Helper()
		if got := goraceOf(out); !slices.Equal(got, want) {
			t.Errorf("the command's GORACE = %q, want %q (environment %q)", got, want, out)
		}
		if strings.Contains(out, initEnv) {
			t.Errorf("the command's environment %q has the init's markers", out)
		}
	}
	for _, c := range cases {
		t.Run("start/"+c.name, func(t *testing.T) {
			var out bytes.Buffer
			s := c.spec
			s.Stdout = &out
			p, err := Start(s)
			if err != nil {
				t.Fatal(err)
			}
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.Pid()))
			if e := p.Wait(); e.Code != 0 || e.Err != nil {
				t.Fatalf("exit %+v", e)
			}
			// The init's runtime variables are srb's alone, whatever
			// the command's (read while the other programs sleep).
			if s.Path == "" {
				got := slices.DeleteFunc(strings.Split(string(environ), "\x00"), func(kv string) bool { return !isRuntimeVar(kv) })
				if err != nil || !slices.Equal(got, []string{own}) {
					t.Errorf("the init's runtime variables = %q (%v), want %s alone", got, err, own)
				}
			}
			check(t, out.String(), c.want)
		})
	}
	servers(t, func(t *testing.T, sv *Server) {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", sv.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00"); !slices.Equal(got, []string{initEnv + "=1", own}) {
			t.Errorf("the serve process's environment = %q, want its marker and %s", got, own)
		}
		for _, c := range cases {
			var out bytes.Buffer
			s := c.spec
			s.Stdout = &out
			if e := serveRun(t, sv, s); e.Code != 0 || e.Err != nil {
				t.Fatalf("%s: exit %+v", c.name, e)
			}
			check(t, out.String(), c.want)
		}
	})
}

package proc

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// ownRuntimeVar is the Go runtime setting of srb's own processes that
// this package carries to the processes of srb's own binary it starts:
// the init and serve processes always, and a command only when its
// program is this executable (the helper, in `srb ladder --host`) and
// its environment has none. Nothing else of srb's environment reaches a
// command this way, and nothing of a command's sets the runtime of its
// init ([initProcessEnv]).
//
// It matters in a race-enabled build (the tests'): such a process that
// ends with status 0 sleeps a second first unless GORACE says
// atexit_sleep_ms=0, and a ladder starts dozens of them. In a build
// without the race detector the runtime ignores it.
const ownRuntimeVar = "GORACE"

// runtimeVars are the variables the Go runtime reads when a process
// starts. A command's own reach its init renamed (cmdPrefix), so they set
// nothing of the init's runtime (which runs as root, the grader's), and
// get their names back for the command.
var runtimeVars = []string{"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GORACE", "GOTRACEBACK"}

// cmdPrefix renames a command's runtime variable in its init's
// environment.
const cmdPrefix = "SRB_PROC_CMD_"

// isRuntimeVar says whether kv sets one of runtimeVars.
func isRuntimeVar(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return slices.Contains(runtimeVars, name)
}

// ownRuntime is "GORACE=..." from this process's environment, or "" when
// it has none.
func ownRuntime() string {
	if v, ok := os.LookupEnv(ownRuntimeVar); ok {
		return ownRuntimeVar + "=" + v
	}
	return ""
}

// hasVar says whether env sets name.
func hasVar(env []string, name string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// selfExe is this executable's identity, found once.
var selfExe = sync.OnceValue(func() os.FileInfo {
	fi, _ := os.Stat("/proc/self/exe")
	return fi
})

// isSelf says whether path is this executable.
func isSelf(path string) bool {
	self := selfExe()
	if self == nil {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, self)
}

// commandEnv is the environment a command with program path starts with:
// env, and srb's own runtime setting when path is this executable and env
// has none.
func commandEnv(env []string, path string) []string {
	if own := ownRuntime(); own != "" && !hasVar(env, ownRuntimeVar) && isSelf(path) {
		return append(slices.Clip(env), own)
	}
	return env
}

// initProcessEnv is the environment of the init of a command whose own
// environment is env: env with its Go runtime variables renamed
// (runtimeVars), the init's marker, and srb's own runtime setting.
func initProcessEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if isRuntimeVar(kv) {
			kv = cmdPrefix + kv
		}
		out = append(out, kv)
	}
	return append(out, serveProcessEnv()...)
}

// initCommandEnv is the command's environment from its init's (environ):
// without the init's marker and runtime variables, the command's own
// runtime variables named back.
func initCommandEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		switch {
		case strings.HasPrefix(kv, initEnv+"="), isRuntimeVar(kv):
		case strings.HasPrefix(kv, cmdPrefix):
			if orig := strings.TrimPrefix(kv, cmdPrefix); isRuntimeVar(orig) {
				out = append(out, orig)
			}
		default:
			out = append(out, kv)
		}
	}
	return out
}

// serveProcessEnv is the serve process's environment, and what an init's
// adds to its command's: the marker and srb's own runtime setting (each
// request to a serve process carries its command's environment).
func serveProcessEnv() []string {
	env := []string{initEnv + "=1"}
	if own := ownRuntime(); own != "" {
		env = append(env, own)
	}
	return env
}

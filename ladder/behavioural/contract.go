package behavioural

import (
	"slices"
	"strings"
)

// The module contract's environment names (HARNESS.md §4.2, CONTRACT_ENV).
const (
	EnvRepo      = "SRB_REPO"
	EnvOriginal  = "SRB_ORIGINAL"
	EnvModuleDir = "SRB_MODULE_DIR"
	EnvModuleID  = "SRB_MODULE_ID"
	EnvSuiteDir  = "SRB_SUITE_DIR"
	EnvWork      = "SRB_WORK"
	EnvSuiteWork = "SRB_SUITE_WORK"
	EnvResult    = "SRB_RESULT"
	// EnvPlan is the helper's plan file (declarative modules): srb's own
	// name, in the helper's environment only.
	EnvPlan = "SRB_PLAN"
)

// MetaHarnessFault is the module-result metadata key that says the grader,
// not the tree under test, failed the module (its value is why): the
// runner then ends the stage with status error, an invalid verdict, and
// charges nothing to the submission.
const MetaHarnessFault = "harness_fault"

// The module's clock: its budget in seconds ("%g") and its absolute
// deadline (Unix seconds, 3 decimal places), both from the clock reading
// the runner waits on (HARNESS.md §7 bug 59). They are not contract names:
// a submission may see them.
const (
	EnvModuleTimeout  = "SRB_MODULE_TIMEOUT_SEC"
	EnvModuleDeadline = "SRB_MODULE_DEADLINE"
)

// ContractEnv returns the eight contract names and [EnvPlan], the exact
// set [SubmissionEnv] removes.
func ContractEnv() []string {
	return []string{EnvRepo, EnvOriginal, EnvModuleDir, EnvModuleID, EnvSuiteDir, EnvWork, EnvSuiteWork, EnvResult, EnvPlan}
}

// SubmissionEnv returns base (KEY=VALUE entries) without exactly the
// names of [ContractEnv], then with extra applied unfiltered (KEY=VALUE
// entries, later ones win). It removes names, never a prefix: a variable
// the task declares, such as SRB_GOPROXY_ROOT, survives (HARNESS.md §4.2,
// bug 69). Modules use it for every process the submission controls: its
// build, its binaries, a candidate.
func SubmissionEnv(base []string, extra ...string) []string {
	contract := ContractEnv()
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(contract, name) {
			continue
		}
		out = append(out, kv)
	}
	return mergeEnv(out, extra...)
}

// mergeEnv applies extra (KEY=VALUE) over base: a name already present is
// replaced in place, a new one appended.
func mergeEnv(base []string, extra ...string) []string {
	out := slices.Clone(base)
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range out {
			if n, _, _ := strings.Cut(old, "="); n == name {
				out[i] = kv
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// Package behavioural runs stage 2: the suite runner with the earlier
// harness's module contract (HARNESS.md §4.2), the build ledger of named
// configurations, and the record/check cycle against ground truth recorded
// from State A.
//
// A [Suite] is a list of modules run in declared order. Each module is one
// process in its own process group, given the SRB_* environment of
// [ContractEnv] plus SRB_MODULE_TIMEOUT_SEC and SRB_MODULE_DEADLINE (read
// from the same clock reading the runner waits on); it writes its
// module-result JSON to $SRB_RESULT. The runner reaps the group (SIGTERM,
// a grace period, SIGKILL) before it reads the result, so nothing a module
// started outlives it. Every declared module is seeded "unreached" before
// the first one starts, and the stage result is rewritten atomically after
// each module, so a stage killed at its clock still publishes everything
// that finished. A module's exit code is advisory: the JSON is the answer,
// and no JSON is an error carrying the tail of the module's log.
//
// Declarative modules (command cases, HTTP exchanges, install trees,
// exported symbols, file digests, tool provenance, the build itself) are
// run by srb's in-image helper (cmd/srb-helper, package [kinds]) from a
// [kinds.Plan] the runner writes; a module of kind "program" is a task's
// own program. The build module builds each named configuration once into
// suite work (the [Ledger]); later modules restore a configuration by
// name, and a configuration the ledger lacks is a failure naming it, never
// a silent rebuild.
//
// The tree under test is the adversary. When the grader is root, every
// process it controls (its build, its programs, its server, the
// provenance wrappers its build calls) is started through the helper's
// jail command as [SubmissionUID], with an environment built from
// [AllowedEnv] and the task's declared variables, in a sandbox folder of
// its own ([Jail]); plans, truth, the ledger's records, results and module
// programs stay in folders only root can enter, and with Jail.Mount (srb
// --host as root) they are also hidden by a mount namespace that has a
// private /proc. The runner gives every module the same allow-listed
// environment, counts a result only from a module that ended normally and
// only when the file is the grader's own, and ends the stage as a harness
// fault ([ErrHarnessFault]: status error, metadata harness_fault) when it
// is interrupted, when the stage's clock runs out, or when a module's
// budget runs out while none of the submission's processes was running.
//
// [Record] runs the suite against State A and turns the helper's
// observations into truth files, one per module, with their provenance
// and a fingerprint of the cases; in check mode the helper compares what
// it observes with that truth using go-cmp.
package behavioural

package kinds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// SuiteSpec is everything the stage needs inside a stage image: the task's
// declaration, the mode, and where the trees, the work folder, the truth
// and the result are there. "srb-helper suite SPEC" runs it, so a
// container of the behavioural image runs the whole stage with no srb
// inside (the suite runner is this package's dependency).
type SuiteSpec struct {
	Declaration *behavioural.Declaration `json:"declaration"`
	// Mode is record, identity or check.
	Mode     string `json:"mode"`
	Repo     string `json:"repo"`
	Original string `json:"original,omitempty"`
	Work     string `json:"work"`
	// TruthDir holds the truth files (identity and check).
	TruthDir string `json:"truth_dir,omitempty"`
	// Result is where behavioural.json is written after every module.
	Result string `json:"result"`
	// TimeoutSec is the stage's clock; 0 means none.
	TimeoutSec int `json:"timeout_sec,omitempty"`
	// Helper is the argv prefix of this helper inside the image
	// (default: the running executable).
	Helper []string `json:"helper,omitempty"`
	// Orchestrator is the fingerprint of the srb that wrote this spec
	// (result.Fingerprint: 12 lowercase hex characters), or "" when it
	// has none. The stage result's harness stamp records it as
	// "orchestrator" next to the helper's own fingerprint, so the report
	// and reward.json attribute the stage to that srb build rather than
	// to the helper's executable (result.Grader). A helper built before
	// the field existed ignores it, and its stage then counts as another
	// grader, which it is.
	Orchestrator string `json:"orchestrator,omitempty"`
}

// EnvSuiteSpec names the suite spec file when "srb-helper suite" is given
// none: srb passes it so, in the helper's environment (which only root can
// read), so no argument list in the container names a grader file.
const EnvSuiteSpec = "SRB_SUITE_SPEC"

// runSuite runs a whole stage from a spec file. Exit 0 when it ran
// (whatever the checks decided, and also when its clock ended it), 70
// when it could not.
func runSuite(path string, stderr io.Writer) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "srb-helper: suite: %v\n", err)
		return 70
	}
	var spec SuiteSpec
	if err := json.Unmarshal(b, &spec); err != nil || spec.Declaration == nil {
		fmt.Fprintf(stderr, "srb-helper: suite %s: not a suite spec: %v\n", path, err)
		return 70
	}
	if spec.Orchestrator != "" && !result.IsFingerprint(spec.Orchestrator) {
		fmt.Fprintf(stderr, "srb-helper: suite %s: orchestrator %q is not a fingerprint (12 lowercase hex characters)\n", path, spec.Orchestrator)
		return 70
	}
	if len(spec.Helper) == 0 {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "srb-helper: suite: %v\n", err)
			return 70
		}
		spec.Helper = []string{exe}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if spec.TimeoutSec > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(spec.TimeoutSec)*time.Second)
		defer cancel()
	}
	if os.Geteuid() == 0 && spec.Declaration.Jail == nil {
		j, err := imageJail(&spec, path)
		if err != nil {
			fmt.Fprintf(stderr, "srb-helper: suite: %v\n", err)
			return 70
		}
		spec.Declaration.Jail = j
	}
	suite, err := spec.Declaration.Suite(spec.Mode, spec.Work, spec.TruthDir, spec.Helper)
	if err != nil {
		fmt.Fprintf(stderr, "srb-helper: suite: %v\n", err)
		return 70
	}
	r := &behavioural.Runner{Repo: spec.Repo, Original: spec.Original, Work: spec.Work, ResultPath: spec.Result,
		Orchestrator: spec.Orchestrator, Jail: spec.Declaration.Jail,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, "srb-helper: "+format+"\n", args...) }}
	st, err := r.Run(ctx, suite)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "srb-helper: suite: %v\n", err)
		return 70
	}
	if st.Status != "ok" {
		return 70
	}
	return 0
}

// imageJail isolates the submission inside a stage container, where the
// helper is root and no mount namespace can be made: the grader's folders
// (the spec file, the work and results folders, the task's assets with
// their truth and module programs, the truth folder) are closed to every
// other user (mode 0700), and the submission runs as
// [behavioural.SubmissionUID] in <dir of Work>/sandbox with its own copy
// of the task's data. A folder that cannot be closed is an error in check
// mode (the submission could read or change it) and a note otherwise
// (State A is not an adversary).
func imageJail(spec *SuiteSpec, specPath string) (*behavioural.Jail, error) {
	d := spec.Declaration
	root := filepath.Join(filepath.Dir(filepath.Clean(spec.Work)), "sandbox")
	j, err := behavioural.NewJail(root, d.TaskDir, behavioural.SubmissionUID, behavioural.SubmissionGID, false, nil)
	if err != nil {
		return nil, err
	}
	if err := j.InstallHelper(spec.Helper); err != nil {
		return nil, err
	}
	private := []string{specPath, spec.Work, filepath.Dir(spec.Result), d.TaskDir}
	if spec.TruthDir != "" {
		private = append(private, spec.TruthDir)
	}
	if err := os.MkdirAll(spec.Work, 0o700); err != nil {
		return nil, err
	}
	for _, p := range private {
		if err := behavioural.Private(p); err != nil && spec.Mode == behavioural.ModeCheck {
			return nil, err
		}
	}
	return j, nil
}

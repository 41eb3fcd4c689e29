package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Images runs a task's behavioural suite in its stage images, the
// way srb freeze and srb build's identity run both need it: a record run
// in a container of the verification image (State A built with the old
// toolchain), and identity runs in containers of the behavioural image
// with the record run's build ledger imported (the behavioural image may
// lack the old toolchain).
type Images struct {
	// Engine starts the containers.
	Engine engine.Runner
	// Images are the verification and behavioural images, by stage.
	Images map[string]*Image
	// Original is State A's tree on the host.
	Original string
	// Work is the host folder every run leaves its files in:
	// <Work>/<name>.json and <Work>/<name>/ (the container's work folder).
	Work string
	// Budget is each run's clock (the task's behavioural timeout).
	Budget time.Duration
	// Limits bound each run's container as the task's stage containers
	// are (zero is engine.DefaultLimits): the reference tree's suite, the
	// helper included, is shown to fit the memory a submission's gets,
	// so a submission's stage killed at that limit is the submission's
	// (Container.Run).
	Limits engine.Limits
	// Log reports progress; nil is silent.
	Log func(format string, args ...any)
}

// RecordRun is the name of the record run whose ledger identity runs
// import.
const RecordRun = "record"

// Run is one run named name of decl's modules in mode: record in the
// verification image (its work folder, with the ledger, copied out to
// <Work>/record), identity in the behavioural image with that ledger
// imported, checked against the host folder truthDir ("" is the image's
// own truth/). A stage result is returned whenever the container left
// one; a container fault is then logged, not returned (the stage result
// says what happened, and a refusal names its modules).
func (s *Images) Run(ctx context.Context, decl *behavioural.Declaration, name, mode, truthDir string) (*result.Stage, error) {
	cs := &Container{Engine: s.Engine, Decl: decl, Mode: mode, Repo: s.Original, Original: s.Original, Budget: s.Budget,
		Result: filepath.Join(s.Work, name+".json"), Work: filepath.Join(s.Work, name), Log: s.Log, Limits: s.Limits}
	if mode == behavioural.ModeRecord {
		cs.Image = s.Images[result.StageVerification]
	} else {
		cs.Image, cs.Truth = s.Images[result.StageBehavioural], truthDir
		imported, err := ImportLedger(filepath.Join(s.Work, RecordRun, behavioural.SharedWork, behavioural.LedgerDir), filepath.Join(s.Work, name+"-ledger"))
		if err != nil {
			return nil, err
		}
		cs.Imports = []engine.Copy{{HostPath: imported, ContainerPath: WorkPath + "/" + behavioural.SharedWork + "/" + behavioural.LedgerDir}}
	}
	st, err := cs.Run(ctx)
	if st == nil {
		return nil, err
	}
	if err != nil && s.Log != nil {
		s.Log("%s: %v", name, err)
	}
	return st, nil
}

// Identity is srb build's identity run: State A built by decl's build
// modules in the verification image (a record run of those modules only:
// the other modules' observations are not needed), then every module run
// in the behavioural image against the image's own truth/, with that
// build imported. It returns the identity run's stage result and what in
// it did not reach 1.0 (behavioural.Incomplete; empty when it passed).
func (s *Images) Identity(ctx context.Context, decl *behavioural.Declaration) (*result.Stage, []string, error) {
	builds := *decl
	builds.Modules = nil
	for _, m := range decl.Modules {
		if m.Kind == "build" {
			builds.Modules = append(builds.Modules, m)
		}
	}
	if len(builds.Modules) > 0 {
		if s.Log != nil {
			s.Log("identity run: building State A in the verification image (the old toolchain)")
		}
		if _, err := s.Run(ctx, &builds, RecordRun, behavioural.ModeRecord, ""); err != nil {
			return nil, nil, fmt.Errorf("building State A in the verification image: %w", err)
		}
	} else if err := os.MkdirAll(filepath.Join(s.Work, RecordRun, behavioural.SharedWork, behavioural.LedgerDir), 0o755); err != nil {
		return nil, nil, err
	}
	if s.Log != nil {
		s.Log("identity run: State A checked by every module against the image's truth, in the behavioural image")
	}
	st, err := s.Run(ctx, decl, "identity", behavioural.ModeIdentity, "")
	if err != nil {
		return nil, nil, err
	}
	return st, behavioural.Incomplete(st), nil
}

// ImportLedger copies the record run's ledger (State A built in the
// verification image) to dst with every entry marked imported, for the
// identity runs' build module to report rather than rebuild.
func ImportLedger(src, dst string) (string, error) {
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if _, err := copytree.Copy(src, dst, copytree.Options{DirBits: 0o700, Times: true}); err != nil {
		return "", fmt.Errorf("the record run's build ledger: %w", err)
	}
	l := behavioural.Ledger{Dir: dst}
	for _, name := range l.Names() {
		e, err := l.Get(name)
		if err != nil {
			return "", err
		}
		e.Imported = true
		if err := l.Put(e); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// CheckTruth lists, one line each ("truth/<module>.json:LINE: FIELD:
// message"), what in d's truth files does not fit the task as it is now
// (kinds.CheckTruth: missing or unreadable truth, another task, module or
// kind, provenance missing, empty or of another State A, cases changed,
// an observation a module checks not recorded).
func CheckTruth(d *behavioural.Declaration) []string {
	var out []string
	for _, p := range kinds.CheckTruth(d, "") {
		rel, err := filepath.Rel(d.TaskDir, p.File)
		if err != nil {
			rel = p.File
		}
		loc := filepath.ToSlash(rel)
		if p.Line > 0 {
			loc += fmt.Sprintf(":%d", p.Line)
		}
		if p.Field != "" {
			loc += ": " + p.Field
		}
		out = append(out, loc+": "+p.Msg)
	}
	return out
}

package scoring

import (
	"fmt"
	"math"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
)

// Policy is a task's scoring policy, in points (HARNESS.md §3.2
// [scoring]). Stage 2 pays BehaviouralPoints or nothing; stage 3 pays
// PointsPerSurvivedModel for every one of VerificationModels adversaries
// that found no valid breaking test, up to VerificationPoints; the total is
// capped at MaxScore.
//
// Task is the task's declaration of what its stage results must hold,
// nil when grading without the task (srb score without TASK): then the
// verification result must hold exactly VerificationModels rounds.
type Policy struct {
	MaxScore               float64
	BehaviouralPoints      float64
	VerificationPoints     float64
	VerificationModels     int
	PointsPerSurvivedModel float64
	Task                   *Declaration
}

// Declaration is what a task declares its stage results must cover. With
// it, the task wins over the files: the behavioural result must hold a
// unit for every declared module and no other, and each is weighted with
// the task's Weight whatever the file says; the verification result must
// hold exactly one round per declared adversary and no other. A result
// that does not is a harness fault (an invalid verdict), never a score.
type Declaration struct {
	// Modules are the behavioural modules in declared order.
	Modules []DeclaredModule
	// Adversaries are the verification adversaries' ids in declared order.
	Adversaries []string
}

// DeclaredModule is one behavioural module of a [Declaration]: its id and
// its relative weight (≥ 0; 0 reports without scoring).
type DeclaredModule struct {
	ID     string
	Weight float64
}

// Published returns the published ladder every task uses: 100 points, 40
// for stage 2, 60 for stage 3 as 6 models at 10 points each.
func Published() Policy {
	return Policy{
		MaxScore:               100,
		BehaviouralPoints:      40,
		VerificationPoints:     60,
		VerificationModels:     6,
		PointsPerSurvivedModel: 10,
	}
}

// policyTolerance is how far the policy's arithmetic may be off (HARNESS.md
// §3.2).
const policyTolerance = 1e-6

// Check reports whether the policy's arithmetic closes (HARNESS.md §3.2):
// BehaviouralPoints > 0, VerificationModels ≥ 0, PointsPerSurvivedModel ×
// VerificationModels = VerificationPoints and BehaviouralPoints +
// VerificationPoints = MaxScore, each within 1e-6. The error names every
// invariant that fails.
func (p Policy) Check() error {
	var problems []string
	if !(p.BehaviouralPoints > 0) {
		problems = append(problems, fmt.Sprintf("behavioural_points must be greater than 0, not %s", py.FormatG(p.BehaviouralPoints)))
	}
	if p.VerificationModels < 0 {
		problems = append(problems, fmt.Sprintf("verification_models must not be negative, not %d", p.VerificationModels))
	}
	if d := p.PointsPerSurvivedModel*float64(p.VerificationModels) - p.VerificationPoints; math.IsNaN(d) || math.Abs(d) > policyTolerance {
		problems = append(problems, fmt.Sprintf(
			"points_per_survived_model × verification_models is %s × %d = %s, not verification_points %s",
			py.FormatG(p.PointsPerSurvivedModel), p.VerificationModels,
			py.FormatG(p.PointsPerSurvivedModel*float64(p.VerificationModels)), py.FormatG(p.VerificationPoints)))
	}
	if d := p.BehaviouralPoints + p.VerificationPoints - p.MaxScore; math.IsNaN(d) || math.Abs(d) > policyTolerance {
		problems = append(problems, fmt.Sprintf(
			"behavioural_points + verification_points is %s + %s = %s, not max_score %s",
			py.FormatG(p.BehaviouralPoints), py.FormatG(p.VerificationPoints),
			py.FormatG(p.BehaviouralPoints+p.VerificationPoints), py.FormatG(p.MaxScore)))
	}
	if len(problems) == 0 {
		return nil
	}
	msg := problems[0]
	for _, q := range problems[1:] {
		msg += "; " + q
	}
	return fmt.Errorf("check scoring policy: %s", msg)
}

package scoring

import (
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// taskPolicy is the published policy with a task's declaration: modules
// m (weight 1) and n (weight 2), adversaries adv1 … adv6.
func taskPolicy() Policy {
	p := Published()
	p.Task = &Declaration{
		Modules:     []DeclaredModule{{"m", 1}, {"n", 2}},
		Adversaries: []string{"adv1", "adv2", "adv3", "adv4", "adv5", "adv6"},
	}
	return p
}

func gradeTask(b, v *result.Stage) *result.Verdict {
	return Grade("t", Stages{Audit: audit("g=pass"), Behavioural: b, Verification: v, Declared: result.StageNames()}, taskPolicy())
}

// Graded with the task, its declaration wins over the behavioural file:
// a declared module the file lacks, or one it adds, makes the verdict
// invalid; the file's weights are replaced by the task's.
func TestDeclaredModules(t *testing.T) {
	t.Run("a missing declared module is a harness fault, not a valid 100", func(t *testing.T) {
		v := gradeTask(behavioural(2, mod{"m", 1, 1}), verification(6, 0, 0))
		want := "the behavioural result lacks 1 of the task's 2 module(s): n -- a stage result that does not cover the declared suite has not measured the submission; re-run the stage"
		if v.Valid() || v.HarnessError != want || v.BlockedBy != BlockedBehaviouralError || v.Score != 0 {
			t.Errorf("valid %v error %q blocked %q score %v", v.Valid(), v.HarnessError, v.BlockedBy, v.Score)
		}
	})
	t.Run("an undeclared module is refused", func(t *testing.T) {
		v := gradeTask(behavioural(2, mod{"m", 1, 1}, mod{"n", 2, 1}, mod{"x", 1, 1}), verification(6, 0, 0))
		want := "the behavioural result holds 1 module(s) the task does not declare: x -- it is not this task's suite; re-run the stage"
		if v.Valid() || v.HarnessError != want || v.BlockedBy != BlockedBehaviouralError {
			t.Errorf("valid %v error %q blocked %q", v.Valid(), v.HarnessError, v.BlockedBy)
		}
	})
	t.Run("a failing module the file weighs 0 keeps the task's weight", func(t *testing.T) {
		b := behavioural(2, mod{"m", 1, 1}, mod{"n", 0, 0})
		v := gradeTask(b, verification(6, 0, 0))
		if !v.Valid() || v.Score != 0 || v.BlockedBy != BlockedBehaviouralIncomplete || moduleByID(t, v, "n").Weight != 2 {
			t.Errorf("valid %v score %v blocked %q rows %+v", v.Valid(), v.Score, v.BlockedBy, v.Modules)
		}
		if !hasNote(v, "graded with the task's module weights, not the result's: n (the result says 0, the task 2)") {
			t.Errorf("notes %q", v.Notes)
		}
		// The same file without the task: its own weights are all there is.
		free := Grade("t", Stages{Audit: audit("g=pass"), Behavioural: b, Verification: verification(6, 0, 0)}, Published())
		if free.Score != 100 {
			t.Errorf("without the task: score %v", free.Score)
		}
	})
	t.Run("the gate question agrees", func(t *testing.T) {
		ok, _, why := BehaviouralReachesGate(behavioural(2, mod{"m", 1, 1}), taskPolicy(), "t")
		if ok || why != "the behavioural result lacks 1 of the task's 2 module(s): n -- a stage result that does not cover the declared suite has not measured the submission; re-run the stage [behavioural-error]" {
			t.Errorf("ok %v why %q", ok, why)
		}
	})
}

// Graded with the task, the rounds are exactly its adversaries.
func TestDeclaredRounds(t *testing.T) {
	full := behavioural(2, mod{"m", 1, 1}, mod{"n", 2, 1})
	t.Run("every declared round present pays", func(t *testing.T) {
		v := gradeTask(full, verification(5, 1, 0))
		if !v.Valid() || v.Score != 90 {
			t.Errorf("valid %v error %q score %v", v.Valid(), v.HarnessError, v.Score)
		}
	})
	t.Run("a missing round makes the verdict invalid", func(t *testing.T) {
		v := gradeTask(full, verification(5, 0, 0))
		want := "the verification result lacks 1 of the task's 6 adversaries: adv6, so 10 of the 60 stage-3 points were never contested -- re-run the stage"
		if v.Valid() || v.HarnessError != want || v.BlockedBy != BlockedVerificationIncomplete || v.VerificationPoints != 0 {
			t.Errorf("valid %v error %q blocked %q points %v", v.Valid(), v.HarnessError, v.BlockedBy, v.VerificationPoints)
		}
	})
	t.Run("an unknown round is refused", func(t *testing.T) {
		s := verification(6, 0, 0)
		s.Checks[2].ID = "intruder"
		v := gradeTask(full, s)
		want := "the verification result holds 1 round(s) the task does not declare: intruder -- a round of an adversary the task does not name is refused, not paid; re-run the stage"
		if v.Valid() || v.HarnessError != want || v.BlockedBy != BlockedVerificationError || v.VerificationPoints != 0 {
			t.Errorf("valid %v error %q blocked %q points %v", v.Valid(), v.HarnessError, v.BlockedBy, v.VerificationPoints)
		}
	})
	t.Run("an extra round is refused", func(t *testing.T) {
		v := gradeTask(full, verification(7, 0, 0))
		if v.Valid() || v.BlockedBy != BlockedVerificationError || v.HarnessError != "the verification result holds 1 round(s) the task does not declare: adv7 -- a round of an adversary the task does not name is refused, not paid; re-run the stage" {
			t.Errorf("valid %v error %q", v.Valid(), v.HarnessError)
		}
	})
}

package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// CheckPublished checks that the reward.json and summary.txt beside a
// verdict, when present, say what it says: reward.json is read like every
// contract (no repeated key, its schema, its own arithmetic) and its
// headline numbers must equal the verdict's; summary.txt's score line
// must be the verdict's. A results folder whose three files disagree is
// refused, naming the file and the field (a *contract.ValidationError
// for a reward.json that breaks its contract).
func CheckPublished(dir string, v *result.Verdict) error {
	rp := filepath.Join(dir, result.RewardFile)
	if _, err := os.Stat(rp); err == nil {
		flat, err := result.ReadReward(rp)
		if err != nil {
			return err
		}
		if err := result.RewardAgrees(v, flat); err != nil {
			return fmt.Errorf("%s disagrees with %s: %w", rp, result.ScoreFile, withFileErr(err, rp))
		}
	}
	sp := filepath.Join(dir, result.SummaryFile)
	if st, err := os.Stat(sp); err == nil && st.Mode().IsRegular() {
		text, err := os.ReadFile(sp)
		if err != nil {
			return err
		}
		if err := CheckSummary(v, string(text)); err != nil {
			return fmt.Errorf("%s disagrees with %s: %w", sp, result.ScoreFile, err)
		}
	}
	return nil
}

// withFileErr sets File on a schema validation error.
func withFileErr(err error, path string) error {
	var ve *contract.ValidationError
	if errors.As(err, &ve) && ve.File == "" {
		ve.File = path
	}
	return err
}

// ReadPublished reads the verdict at path (a score.json, or a results
// folder holding one) and checks that its folder's reward.json and
// summary.txt agree with it ([CheckPublished]). The error says there is
// no verdict at the path, or is the verdict's own (result.ReadVerdict)
// or the disagreement.
func ReadPublished(path string) (*result.Verdict, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, result.ScoreFile)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no verdict at %s", path)
	}
	v, err := result.ReadVerdict(path)
	if err != nil {
		return nil, err
	}
	if err := CheckPublished(filepath.Dir(path), v); err != nil {
		return nil, err
	}
	return v, nil
}

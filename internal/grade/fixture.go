package grade

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// AddFixture adds the scripts of the submission fixture at dir
// (audit/*.json, adversaries/<id>.json in id order, adjudicator.json) to
// lo. With drivers (no driver was chosen), each position a script covers
// gets the scripted driver, as srb ladder --submission-fixture gives it
// ([ResolveDrivers]). The error is the fixture's that cannot be loaded.
func (lo *DriverFlags) AddFixture(dir string, drivers bool) error {
	fx, err := submission.Load(dir)
	if err != nil {
		return err
	}
	if len(fx.AuditScripts) > 0 && drivers {
		lo.AuditDriver = models.DriverScripted
	}
	lo.AuditScripts = append(lo.AuditScripts, fx.AuditScripts...)
	ids := slices.Sorted(maps.Keys(fx.AdversaryScripts))
	if len(ids) > 0 && drivers {
		lo.AdversaryDriver = models.DriverScripted
	}
	for _, id := range ids {
		lo.AdversaryScripts = append(lo.AdversaryScripts, id+"="+fx.AdversaryScripts[id])
	}
	if fx.AdjudicatorScript != "" {
		if drivers {
			lo.AdjudicatorDriver = models.DriverScripted
		}
		lo.AdjudicatorScript = fx.AdjudicatorScript
	}
	return nil
}

// FixtureSolution is [harbor.FixtureSolution] for the submission fixture
// at dir over t's State A from the cache at cacheDir ("" is
// source.DefaultCacheDir): the oracle's solution of srb trial and srb
// export harbor. cleanup removes State A's tree and the solution's
// (after Solution.WriteDir). Errors are the fixture's, State A's
// ("State A: …") or the solution's.
func FixtureSolution(ctx context.Context, t *task.Task, dir, cacheDir string) (*harbor.Solution, func(), error) {
	fx, err := submission.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	original, cleanupA, err := (Backend{CacheDir: cacheDir}).StateA(ctx, t)
	if err != nil {
		return nil, nil, fmt.Errorf("State A: %w", err)
	}
	s, cleanupS, err := harbor.FixtureSolution(fx, original)
	if err != nil {
		cleanupA()
		return nil, nil, err
	}
	return s, func() { cleanupA(); cleanupS() }, nil
}

// ApplyFixture applies the submission fixture fx on t's State A (from
// the cache at cacheDir, "" source.DefaultCacheDir) into out, a folder
// that must not exist ([submission.Fixture.Apply]), and returns what it
// deleted and wrote. Errors are State A's ("State A: …") or the
// application's.
func ApplyFixture(ctx context.Context, t *task.Task, fx *submission.Fixture, cacheDir, out string) (*submission.Applied, error) {
	original, cleanup, err := (Backend{CacheDir: cacheDir}).StateA(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("State A: %w", err)
	}
	defer cleanup()
	return fx.Apply(original, out)
}

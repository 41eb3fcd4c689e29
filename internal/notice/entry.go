package notice

import "github.com/swe-refactor-bench/srb/internal/task"

// EntryFor analyses t's State A archive at archivePath and returns t's
// NOTICE entry; SHA256 is the task's pin. The findings are read from
// beside the archive when this build wrote them ([AnalyseCached]), with
// the task's licence reviews applied ([ApplyReviews]). Errors are
// Analyse's.
func EntryFor(t *task.Task, archivePath string) (Entry, error) {
	f, err := AnalyseCached(archivePath)
	if err != nil {
		return Entry{}, err
	}
	// A review that does not apply is license-found's problem (srb
	// validate); the entry publishes only the reviews that do.
	f, _ = ApplyReviews(f, t.StateA.LicenceReviews)
	a := t.StateA
	return Entry{Task: t.ID, Project: a.Project, Version: a.Version, Upstream: a.Upstream, SHA256: a.SHA256, Finding: f}, nil
}

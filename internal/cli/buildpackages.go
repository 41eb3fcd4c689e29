package cli

import (
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// packagesDrift adds to d, an image of want that got did not reproduce,
// each package (Debian or npm, nested dependencies included) whose
// version or files moved between the packages list want recorded and
// got's, as "packages: <package> <was> → <now>" (issue 16: a registry's
// patch release of an npm dependency moved a digest with no input named).
// root is srb build's image folder, where the lists are kept by digest.
func packagesDrift(root string, want, got *image.Lock, d image.Drift) image.Drift {
	for _, m := range image.PackagesMoved(root, want, got, d.Stage) {
		d.Moved = append(d.Moved, "packages: "+m)
	}
	return d
}

// notePackagesMoved logs, for a build that writes images.lock over prev
// (nil when there was none), each package of each stage that moved since
// prev was written.
func notePackagesMoved(root string, prev, lock *image.Lock, logf func(format string, args ...any)) {
	if prev == nil {
		return
	}
	for _, s := range task.StageNames {
		if _, ok := lock.Images[s]; !ok {
			continue
		}
		for _, m := range image.PackagesMoved(root, prev, lock, s) {
			logf("%s: the %s image's packages moved since %s: %s", lock.Task, s, image.LockName, m)
		}
	}
}

package image

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// maxAssetChanges caps the paths [StaleAssets] names.
const maxAssetChanges = 10

// assetsRoot is where [StaleAssets] stages the task's assets to digest
// them: the image build folder srb build uses (<cache>/images, the cache
// being $SRB_CACHE or the user cache's srb folder), so the folder a
// build staged is found there to name what changed, and the one staged
// now is reused by the build that follows. A temporary folder (removed
// by the returned func) when there is no cache folder.
func assetsRoot() (string, func(), error) {
	if d, err := source.DefaultCacheDir(); err == nil {
		return filepath.Join(d, "images"), func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "srb-assets-")
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// StaleAssets says whether the stage image images.lock records as li
// was built from the task folder's current assets (its modules/, data/
// and truth/ folders, which the behavioural and verification images hold
// under /tests/<stage>/): it digests them as srb build does and compares
// the digest with the "assets" input li records. It returns "" when they
// agree (or the stage holds no assets), else a sentence naming the task,
// the stage, both digests and, when the tree the image was built from is
// still staged on this machine, the paths that changed ("data/x.json
// changed", "… added", "… removed"). An asset that cannot go into an
// image (a link leading out of its folder) is a *TaskFolderError.
func StaleAssets(t *task.Task, stage string, li LockImage) (string, error) {
	if stage != "behavioural" && stage != "verification" {
		return "", nil
	}
	root, done, err := assetsRoot()
	if err != nil {
		return "", fmt.Errorf("assets: %w", err)
	}
	defer done()
	cur, err := prepareAssets(t, root)
	if err != nil {
		return "", err
	}
	was := li.Inputs["assets"]
	now := ""
	if cur != nil {
		now = cur.Digest
	}
	if was == now {
		return "", nil
	}
	what := "the task's " + strings.Join(AssetDirs, "/, ") + "/ folders"
	var s string
	switch {
	case was == "":
		s = fmt.Sprintf("%s: %s records no assets input for the %s image, but the task has %s (%.19s): the image does not hold them",
			t.ID, LockName, stage, what, now)
	case now == "":
		s = fmt.Sprintf("%s: the %s image was built from %s (%.19s in %s), which the task no longer has",
			t.ID, stage, what, was, LockName)
	default:
		s = fmt.Sprintf("%s: %s changed since the %s image was built (assets %.19s in %s, %.19s now)",
			t.ID, what, stage, was, LockName, now)
	}
	if was != "" && now != "" {
		old := filepath.Join(root, "staged", "assets-"+t.ID, strings.TrimPrefix(was, "sha256:"))
		if _, err := os.Stat(old); err == nil {
			if ch := diffTrees(old, cur.Dir); len(ch) > 0 {
				s += ": " + strings.Join(ch, ", ")
			}
		}
	}
	return s, nil
}

// diffTrees names the paths that differ between the trees a (was) and b
// (now): "<path> changed" (content, mode, type or link target), "<path>
// added", "<path> removed", in path order, at most maxAssetChanges then
// "and N more". A tree that cannot be read names nothing.
func diffTrees(a, b string) []string {
	list := func(dir string) map[string]string {
		m := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if rel == "." {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			sig := fmt.Sprintf("%v", info.Mode())
			switch {
			case info.Mode().IsRegular():
				sum, err := fileSHA256(p)
				if err != nil {
					return err
				}
				sig += " " + sum
			case info.Mode()&fs.ModeSymlink != 0:
				t, _ := os.Readlink(p)
				sig += " " + t
			}
			m[filepath.ToSlash(rel)] = sig
			return nil
		})
		if err != nil {
			return nil
		}
		return m
	}
	was, now := list(a), list(b)
	if was == nil || now == nil {
		return nil
	}
	var out []string
	for p, w := range was {
		switch n, ok := now[p]; {
		case !ok:
			out = append(out, p+" removed")
		case n != w:
			out = append(out, p+" changed")
		}
	}
	for p := range now {
		if _, ok := was[p]; !ok {
			out = append(out, p+" added")
		}
	}
	sort.Strings(out)
	if len(out) > maxAssetChanges {
		out = append(out[:maxAssetChanges], fmt.Sprintf("and %d more", len(out)-maxAssetChanges))
	}
	return out
}

package task

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
)

// ValidateOptions tune [ValidateWith].
type ValidateOptions struct {
	// TruthMemo is a folder (made when missing) where the truth rule keeps
	// what kinds.CheckTruth found, one file per [truthKey]: the check
	// decodes every truth file in full (lang01's 1.8 MB of truth cost it
	// about 170 ms of CPU a run), and its result depends only on the task
	// folder's bytes, the declaration and srb's build. "" checks every time.
	TruthMemo string
	// LoadMemo is the task load's memo folder (LoadOptions.Memo).
	LoadMemo string
}

// ValidateWith is [Validate] with options.
func ValidateWith(dir string, o ValidateOptions) *Report {
	return validate(dir, o)
}

// truthMemoFormat is bumped when what a memo file holds changes shape.
const truthMemoFormat = "truth-memo 1"

// truthKey is the hex sha256 of everything kinds.CheckTruth(d, "") reads:
// srb's build ([archive.BuildKey], which fixes the checker), the
// declaration as JSON, and every file under the task folder (its
// slash-separated path, type, mode and content; a symbolic link's
// target), in lexical order. It fails when the folder cannot be read.
func truthKey(d *behavioural.Declaration) (string, error) {
	h := sha256.New()
	decl, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%s\n%s\n%d:%s\n", truthMemoFormat, archive.BuildKey(), len(decl), decl)
	err = filepath.WalkDir(d.TaskDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.TaskDir, p)
		info, err := e.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%q %v", filepath.ToSlash(rel), info.Mode())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, " -> %q\n", target)
		case e.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			n, err := io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, " %d\n", n)
		default:
			fmt.Fprintln(h)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkTruth is kinds.CheckTruth(d, ""), read from memo when a run of
// this srb build checked the same bytes before, and written there
// otherwise (through a temporary file and a rename; a memo that cannot
// be written is not an error).
func checkTruth(d *behavioural.Declaration, memo string) []kinds.TruthProblem {
	if memo == "" {
		return kinds.CheckTruth(d, "")
	}
	key, err := truthKey(d)
	if err != nil {
		return kinds.CheckTruth(d, "")
	}
	path := filepath.Join(memo, key+".json")
	if b, err := os.ReadFile(path); err == nil {
		var ps []kinds.TruthProblem
		if json.Unmarshal(b, &ps) == nil {
			return ps
		}
	}
	ps := kinds.CheckTruth(d, "")
	if b, err := json.Marshal(ps); err == nil && os.MkdirAll(memo, 0o755) == nil {
		if f, err := os.CreateTemp(memo, ".tmp-*"); err == nil {
			_, werr := f.Write(b)
			cerr := f.Close()
			if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
				os.Remove(f.Name())
			}
		}
	}
	return ps
}

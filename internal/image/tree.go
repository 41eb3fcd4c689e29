package image

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// TreeDigest returns "sha256:<hex>" over the tree at dir: for every entry
// in lexical path order its path, type, permission bits, owner, and its
// content's sha256 or its link target. Times are not part of it (they are
// normalised when the tree is made). Device files and sockets are refused.
func TreeDigest(dir string) (string, error) {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("tree digest: %w", err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", fmt.Errorf("tree digest: %w", err)
		}
		uid, gid := owner(fi)
		mode := fi.Mode()
		line := ""
		switch {
		case mode.IsRegular():
			sum, err := fileSHA256(p)
			if err != nil {
				return "", fmt.Errorf("tree digest: %w", err)
			}
			line = fmt.Sprintf("f %s %o %d %d %s", filepath.ToSlash(rel), mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), uid, gid, sum)
		case mode.IsDir():
			line = fmt.Sprintf("d %s %o %d %d", filepath.ToSlash(rel), mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), uid, gid)
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return "", fmt.Errorf("tree digest: %w", err)
			}
			line = fmt.Sprintf("l %s %d %d %s", filepath.ToSlash(rel), uid, gid, target)
		default:
			return "", fmt.Errorf("tree digest: %s is a special file (%v)", rel, mode.Type())
		}
		io.WriteString(h, strings.ReplaceAll(line, "\n", "\\n")+"\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func owner(fi fs.FileInfo) (int, int) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid)
	}
	return 0, 0
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// setTimes sets the access and modification times of every entry under
// dir (symbolic links themselves, not their targets) to t.
func setTimes(dir string, t time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p) // after their contents: writing a child moves a folder's mtime
			return nil
		}
		return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
	if err != nil {
		return fmt.Errorf("set times: %w", err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, dirs[i], ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("set times: %w", err)
		}
	}
	return nil
}

// copyNormalised copies the tree src into dst (which must not exist) the
// way srb puts local sources into images (copytree.Normalise): regular
// files 0755 when any execute bit is set and 0644 otherwise, folders 0755,
// symbolic links kept, special files skipped, entries skip reports true
// left out; owners are whoever runs srb (the LLB copy sets them), times
// are set by the caller.
func copyNormalised(src, dst string, skip func(rel string, d fs.DirEntry) bool) error {
	_, err := copytree.Copy(src, dst, copytree.Options{Modes: copytree.Normalise, Exclude: skip})
	return err
}

package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// errManifestTooLarge stops a manifest walk past its entry limit: the
// source is then repacked, and the repack reports the limit.
var errManifestTooLarge = errors.New("manifest: too many entries")

// localManifest is the hex sha256 of what a local State A is made of,
// read without reading any file's content: for a file (an archive), its
// size, mode, modification and change times, inode and device; for a
// folder, the same for every entry below it but .git (at any depth, as
// fetchLocal leaves it out), with each symbolic link's target, in
// lexical order of the slash-separated path. A rewrite of a file
// (even keeping its mtime) moves its ctime, so an equal manifest means
// an unchanged source. Folders are read through their file descriptors
// (openat and fstatat relative to the parent, never a path resolved
// from the root), with at most maxEntries entries.
func localManifest(p string, maxEntries int) (string, error) {
	h := sha256.New()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		// A link to the source: describe the link and what it names.
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "link %q\n", target)
		if err := unix.Stat(p, &st); err != nil {
			return "", err
		}
	}
	writeStat(h, ".", &st)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		n := 0
		if err := manifestDir(h, fd, "", &n, maxEntries); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeStat adds one entry; a folder by its mode alone, since its
// entries are listed (its own times move with a .git below it).
func writeStat(h hash.Hash, rel string, st *unix.Stat_t) {
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		fmt.Fprintf(h, "%q %o\n", rel, st.Mode)
		return
	}
	fmt.Fprintf(h, "%q %o %d %d.%09d %d.%09d %d %d\n", rel, st.Mode, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec, st.Ino, st.Dev)
}

// manifestDir adds the entries of the folder open as fd (closing it) to
// h, relative paths prefixed by rel.
func manifestDir(h hash.Hash, fd int, rel string, n *int, max int) error {
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if name == ".git" {
			continue
		}
		if *n++; max > 0 && *n > max {
			return errManifestTooLarge
		}
		r := filepath.ToSlash(filepath.Join(rel, name))
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		writeStat(h, r, &st)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			buf := make([]byte, 4096)
			k, err := unix.Readlinkat(fd, name, buf)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q\n", buf[:k])
		case unix.S_IFDIR:
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			if err := manifestDir(h, sub, r, n, max); err != nil {
				return err
			}
		}
	}
	return nil
}

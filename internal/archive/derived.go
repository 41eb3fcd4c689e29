package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
)

// derivedFormat is bumped whenever what a [Derived] file holds changes
// shape; it is part of every file's key, with [BuildKey].
const derivedFormat = "1"

var (
	buildKeyOnce sync.Once
	buildKey     string
)

// BuildKey identifies the running srb build for caches of what it
// computes: a hex sha256 over the module version, the VCS revision and
// its modified flag, the build settings, the Go version, and the
// executable's path, size, modification time and inode (so a rebuilt
// devel binary never reads the results of another build). It costs one
// stat, computed once per process; it never hashes the executable.
func BuildKey() string {
	buildKeyOnce.Do(func() {
		h := sha256.New()
		fmt.Fprintf(h, "format %s\ngo %s %s/%s\n", derivedFormat, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		if bi, ok := debug.ReadBuildInfo(); ok {
			fmt.Fprintf(h, "main %s %s %s\n", bi.Main.Path, bi.Main.Version, bi.Main.Sum)
			for _, s := range bi.Settings {
				fmt.Fprintf(h, "setting %s=%s\n", s.Key, s.Value)
			}
		}
		if exe, err := os.Executable(); err == nil {
			fmt.Fprintf(h, "exe %s\n", exe)
			if st, err := os.Stat(exe); err == nil {
				fmt.Fprintf(h, "size %d mtime %d\n", st.Size(), st.ModTime().UnixNano())
				if sys, ok := st.Sys().(*syscall.Stat_t); ok {
					fmt.Fprintf(h, "ino %d dev %d\n", sys.Ino, sys.Dev)
				}
			}
		}
		buildKey = hex.EncodeToString(h.Sum(nil))
	})
	return buildKey
}

// fileStamp is what identifies one version of a file without reading it:
// a rewrite, a rename over it or a chmod changes its ctime or inode.
type fileStamp struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
}

func stampOf(st os.FileInfo) fileStamp {
	s := fileStamp{Size: st.Size(), Mtime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.Ctime = sys.Ctim.Nano()
		s.Ino, s.Dev = sys.Ino, uint64(sys.Dev)
	}
	return s
}

// derivedFile is what a Derived file holds.
type derivedFile struct {
	Build   string          `json:"build"`
	Archive fileStamp       `json:"archive"`
	Value   json.RawMessage `json:"value"`
}

// DerivedPath is where [Derived] keeps what name derives from the
// archive at archivePath: beside it, "<archive>.<name>.json".
func DerivedPath(archivePath, name string) string {
	return archivePath + "." + name + ".json"
}

// Derived returns what compute derives from the archive at archivePath
// (a file list, licence findings), reading it from [DerivedPath] when
// that file was written by this srb build ([BuildKey]) for this very
// archive file (same size, mtime, ctime, inode and device), and else
// computing it and writing it there atomically (mode 0600, through a
// temporary file and a rename in the same folder). Archives in srb's
// cache are named by their digest, so the digest keys the result too.
// A cache that cannot be written is not an error: the value is computed
// each time. name must be a plain file-name fragment ("files"). Errors
// are compute's, or the archive's stat error.
func Derived[T any](archivePath, name string, compute func() (T, error)) (T, error) {
	var zero T
	st, err := os.Stat(archivePath)
	if err != nil {
		return zero, err
	}
	stamp := stampOf(st)
	path := DerivedPath(archivePath, name)
	if b, err := os.ReadFile(path); err == nil {
		var d derivedFile
		if json.Unmarshal(b, &d) == nil && d.Build == BuildKey() && d.Archive == stamp {
			var v T
			if json.Unmarshal(d.Value, &v) == nil {
				return v, nil
			}
		}
	}
	v, err := compute()
	if err != nil {
		return zero, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v, nil
	}
	b, err := json.Marshal(derivedFile{Build: BuildKey(), Archive: stamp, Value: raw})
	if err != nil {
		return v, nil
	}
	// Only a stamp taken before compute read the archive is kept: an
	// archive replaced meanwhile leaves no file claiming to be of it.
	if st2, err := os.Stat(archivePath); err != nil || stampOf(st2) != stamp {
		return v, nil
	}
	if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, b) {
		return v, nil
	}
	writeDerived(path, b)
	return v, nil
}

// writeDerived writes b to path through a temporary file in its folder
// and a rename, ignoring failure (a read-only cache computes each time).
func writeDerived(path string, b []byte) {
	f, err := os.CreateTemp(filepath.Dir(path), ".derived-*")
	if err != nil {
		return
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(tmp, path) != nil {
		os.Remove(tmp)
	}
}

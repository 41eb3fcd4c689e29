package archive

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data, mode perm, through a temporary
// file in the same folder and a rename, so a reader never sees half a
// file. The file is synced before the rename and the folder after it, so
// a crash leaves the old file or the whole new one, never an empty one
// under the new name. The temporary file is removed on every failure
// path; the folder must exist. (ladder/result keeps a copy of its own for
// the results: the in-image helper links it, and this package is srb's.)
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", name, err)
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(name, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

package progsep

// A launch with --copy-cwd ([Request.CopyCwd]): the program runs in a
// copy of its caller's working folder, a folder of the launched uid's,
// and when it and everything it started are gone, what it wrote there
// comes back into the caller's folder (docs/PROGSEP.md, "Files the
// program writes"). Each side of the copy runs on an OS thread of its own
// whose file-system identity (fsuid, fsgid, supplementary groups) is the
// side's user's, so the broker's root reads and writes nothing for it:
//
//   - in: read as the launched uid (it copies only what the caller's group
//     may read), written as the launched uid into its folder;
//   - back: read as the launched uid (its own files, with none of its
//     processes left), written as the caller, through an [os.Root] at
//     the caller's folder (no link leads out of it), and only where the
//     program could have written had it run there with the caller's
//     rights over what it could read: a file it creates in a folder the
//     copy carried in (the caller's group could list it) or in one it
//     made, or a file the copy carried in (the caller's group could read
//     it) that it changed. A file of the caller's that the program could
//     not read (0600, a candidate's expectations), a folder of the
//     caller's it could not list, a folder's place taken by something
//     else: never written. No link is made in the caller's folder (a link
//     the program left comes back as a copy of the file it leads to), so
//     nothing that comes back aliases another name. Nothing is removed
//     from the caller's folder.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// Bounds of one copy (in or back): past them the launch fails.
const (
	MaxCopyEntries = 20000
	MaxCopyBytes   = 1 << 30
)

// Creds is a file-system identity a copy runs as: nil is this process's.
type Creds struct {
	UID, GID int
	Groups   []int
}

// fileID tells a file the copy made from the same file changed (ctime
// cannot be set back).
type fileID struct {
	ino   uint64
	size  int64
	mtime syscall.Timespec
	ctime syscall.Timespec
}

// Copied is what [CopyIn] put in the program's folder: each regular file
// (slash-separated, relative) as it left it in the program's folder, and
// the caller's file it was copied from as it was then; and each folder it
// could list.
type Copied map[string]Carried

// Carried is one file [CopyIn] copied: the copy as it left it (work) and
// the caller's file as it read it (from). [CopyBack] writes a changed
// copy back only over that same caller's file, unchanged since (a file
// the caller replaced or rewrote while the program ran keeps what the
// caller put there).
type Carried struct {
	work, from fileID
	// dir says the entry is a folder CopyIn listed (its content, what
	// the copy's identity may read, was copied): what the program
	// creates in it may come back.
	dir bool
}

func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, true
}

// asThread runs fn on an OS thread of its own whose fsuid, fsgid and
// supplementary groups are c's (c nil: this process's); a thread whose
// identity changed is never given back to the runtime (it ends with fn),
// and it is never the main thread, which ladder/hostuser's init keeps for
// the main goroutine (the runtime cannot end the main thread: its
// identity would stay, and /proc/PID/status shows it).
func asThread(c *Creds, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if c == nil {
			defer runtime.UnlockOSThread()
		} else if err := setThreadCreds(c); err != nil {
			done <- fmt.Errorf("the copy's identity (uid %d): %w", c.UID, err)
			return
		}
		done <- fn()
	}()
	return <-done
}

// setThreadCreds sets the calling thread's (never the process's: the raw
// system calls, not syscall.Setgroups and its like, which apply to every
// thread) supplementary groups, fsgid and fsuid to c's. A fsuid other than
// 0 drops the file-system capabilities from the thread's effective set.
func setThreadCreds(c *Creds) error {
	gids := make([]uint32, len(c.Groups))
	for i, g := range c.Groups {
		gids[i] = uint32(g)
	}
	var p unsafe.Pointer
	if len(gids) > 0 {
		p = unsafe.Pointer(&gids[0])
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(gids)), uintptr(p), 0); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(c.GID), 0, 0)
	syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(c.UID), 0, 0)
	// setfs[ug]id answer the previous value and fail silently: an invalid
	// id (-1) changes nothing and reads the current one back.
	if r, _, _ := syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(^uint32(0)), 0, 0); int(uint32(r)) != c.GID {
		return fmt.Errorf("setfsgid %d: still %d", c.GID, uint32(r))
	}
	if r, _, _ := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(^uint32(0)), 0, 0); int(uint32(r)) != c.UID {
		return fmt.Errorf("setfsuid %d: still %d", c.UID, uint32(r))
	}
	return nil
}

// budget counts a copy's entries and bytes against its bounds.
type budget struct {
	entries int
	bytes   int64
}

func (b *budget) take(n int64) error {
	b.entries++
	return b.takeBytes(n)
}

// takeBytes counts n more bytes (a file read through a link) against
// the bounds.
func (b *budget) takeBytes(n int64) error {
	b.bytes += n
	if b.entries > MaxCopyEntries || b.bytes > MaxCopyBytes {
		return fmt.Errorf("the working folder's copy is past its bounds (%d entries, %d bytes)", MaxCopyEntries, MaxCopyBytes)
	}
	return nil
}

// CopyIn copies the folder src into dst (an empty folder as's may write)
// as as: folders it may list, regular files it may read, links as links;
// what as cannot read or list (a folder it may not list is not made
// either), and anything else (FIFOs, sockets, devices), is left out.
// Modes (permission bits only) and modification times are kept.
func CopyIn(src, dst string, as *Creds) (Copied, error) {
	copied := Copied{}
	err := asThread(as, func() error {
		from, err := os.OpenRoot(src)
		if err != nil {
			return err
		}
		defer from.Close()
		to, err := os.OpenRoot(dst)
		if err != nil {
			return err
		}
		defer to.Close()
		var b budget
		return fs.WalkDir(from.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if p == "." {
				return err
			}
			if err != nil {
				// A folder it may not list: left out, the folder too
				// (made empty when the walk reached it, before it tried
				// to list it), so the program cannot write where the
				// caller keeps what its group may not see.
				if d != nil && d.IsDir() {
					if c, ok := copied[p]; ok && c.dir {
						delete(copied, p)
						to.Remove(p)
					}
					return fs.SkipDir
				}
				return nil
			}
			fi, err := from.Lstat(p)
			if err != nil {
				return nil
			}
			if err := b.take(fi.Size()); err != nil {
				return err
			}
			switch {
			case fi.IsDir():
				if err := to.Mkdir(p, 0o700); err != nil {
					return err
				}
				copied[p] = Carried{dir: true}
				// Its mode once its content is in: see below.
			case fi.Mode()&fs.ModeSymlink != 0:
				target, err := from.Readlink(p)
				if err != nil {
					return nil
				}
				if err := to.Symlink(target, p); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				src, ok, err := copyFile(from, p, to, p, fi.Mode().Perm(), true)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
				to.Chtimes(p, fi.ModTime(), fi.ModTime())
				if got, err := to.Lstat(p); err == nil {
					if id, ok := idOf(got); ok {
						copied[p] = Carried{work: id, from: src}
					}
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	// Folders get their modes (and times) last, so a read-only one still
	// took its content.
	err = asThread(as, func() error {
		from, err := os.OpenRoot(src)
		if err != nil {
			return err
		}
		defer from.Close()
		to, err := os.OpenRoot(dst)
		if err != nil {
			return err
		}
		defer to.Close()
		return fs.WalkDir(to.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "." || !d.IsDir() {
				return nil
			}
			if fi, err := from.Lstat(p); err == nil && fi.IsDir() {
				defer to.Chtimes(p, fi.ModTime(), fi.ModTime())
				defer to.Chmod(p, fi.Mode().Perm()|0o700)
			}
			return nil
		})
	})
	return copied, err
}

// copyFile copies the regular file p of from to q of to (created with
// perm, or, unless create, truncated), reading it without following a
// link or blocking on a FIFO, and returns the identity of the file it
// read; it reports false, with no error, when p cannot be read or is no
// regular file.
func copyFile(from *os.Root, p string, to *os.Root, q string, perm fs.FileMode, create bool) (fileID, bool, error) {
	in, err := from.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileID{}, false, nil
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return fileID{}, false, nil
	}
	id, _ := idOf(fi)
	return id, true, writeFrom(in, to, q, perm, create)
}

func writeFrom(in io.Reader, to *os.Root, q string, perm fs.FileMode, create bool) error {
	flag := os.O_WRONLY | syscall.O_NOFOLLOW
	if create {
		flag |= os.O_CREATE | os.O_EXCL
	} else {
		flag |= os.O_TRUNC
	}
	out, err := to.OpenFile(q, flag, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// backItem is one entry of the program's folder on its way back: a
// folder (f nil) or an open regular file.
type backItem struct {
	p    string
	dir  bool
	perm fs.FileMode
	f    *os.File
	size int64 // the bytes of f counted against the bounds: what is copied
}

// localLink says whether a link's target is relative. Such a link the
// program left (a shared library's libfoo.so -> libfoo.so.1, an install
// tree's bin/tool -> ../lib/tool) comes back as a copy of the regular file
// it leads to ([CopyBack]), read through the root at the program's folder,
// which no link leads out of; an absolute one is left out.
func localLink(target string) bool {
	return target != "" && !path.IsAbs(target)
}

// CopyBack brings what the program wrote in its folder (work, read as
// launched, once none of its processes is left) back into the caller's
// folder dst, written as caller, inside dst itself and the folders
// [CopyIn] listed (copied) or this copy-back made: folders it made, files
// it made, and files the copy carried in that it changed, where dst holds
// the very file the copy carried in, unchanged since (never one the
// program could not read) or nothing. A link it left whose target stays
// in its folder ([localLink]) and leads (within work) to a regular file
// comes back as a regular file holding that file's content, made or
// written under the same rules; no link is ever made in dst. Other links,
// FIFOs and the like are not brought back; nothing is removed from dst; a
// name the caller made or changed meanwhile, or where the caller may not
// write, keeps what it holds; a folder of dst the program could not list
// (the caller's 0700 one) gets nothing, though the program made a folder
// of that name.
//
// What comes back can never stand in for a file the caller writes after
// the program ended (issue 14, the break attempts of 2026-12-04 and
// 2026-12-05): a file made here is the caller's to write (owner read and
// write whatever mode the program gave it; never writable by the caller's
// group, every launched program's), and no two names of dst come back as
// one file (a link expected -> out, out being the program's output file,
// would have the caller's later "> expected" write into out and its
// comparison compare a file with itself; a copy does not).
//
// It returns the first error (a full disk, the bounds) and the number of
// entries written.
func CopyBack(work, dst string, copied Copied, launched, caller *Creds) (int, error) {
	items := make(chan backItem)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		readErr <- asThread(launched, func() error {
			defer close(items)
			from, err := os.OpenRoot(work)
			if err != nil {
				return err
			}
			defer from.Close()
			var b budget
			return fs.WalkDir(from.FS(), ".", func(p string, d fs.DirEntry, err error) error {
				if p == "." {
					return err
				}
				if err != nil {
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				fi, err := from.Lstat(p)
				if err != nil || d.IsDir() != fi.IsDir() {
					// Changed since its folder was listed (another uid's
					// process): never walked through.
					if d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if err := b.take(fi.Size()); err != nil {
					return err
				}
				it := backItem{p: p, perm: fi.Mode().Perm() & 0o777}
				switch {
				case fi.IsDir():
					it.dir = true
				case fi.Mode().IsRegular():
					if id, ok := idOf(fi); ok && copied[p].work == id {
						return nil // carried in, unchanged
					}
					f, err := from.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
					if err != nil {
						return nil
					}
					if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
						f.Close()
						return nil
					}
					it.f, it.size = f, fi.Size()
				case fi.Mode()&fs.ModeSymlink != 0:
					// The file it leads to, read through the link within
					// work (the root keeps it there), counted as a file
					// of its own: a thousand links to one large file are
					// a thousand copies.
					target, err := from.Readlink(p)
					if err != nil || !localLink(target) {
						return nil
					}
					f, err := from.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
					if err != nil {
						return nil
					}
					st, err := f.Stat()
					if err != nil || !st.Mode().IsRegular() {
						f.Close()
						return nil
					}
					if err := b.takeBytes(st.Size()); err != nil {
						f.Close()
						return err
					}
					it.f, it.perm, it.size = f, st.Mode().Perm()&0o777, st.Size()
				default:
					return nil
				}
				select {
				case items <- it:
					return nil
				case <-stop:
					if it.f != nil {
						it.f.Close()
					}
					return errors.New("stopped")
				}
			})
		})
	}()
	var once sync.Once
	halt := func() {
		once.Do(func() { close(stop) })
		for it := range items {
			if it.f != nil {
				it.f.Close()
			}
		}
	}
	written := 0
	werr := asThread(caller, func() error {
		to, err := os.OpenRoot(dst)
		if err != nil {
			return err
		}
		defer to.Close()
		// The folders of dst the program could write in, an allow-list:
		// dst itself, a folder CopyIn listed that is still a folder, one
		// made here. An item whose folder is not one of them is dropped
		// (its folder was refused, or never came: another uid's process
		// swapped a folder of work for a link while the walk ran, and the
		// walk went through it).
		accepted := map[string]bool{".": true}
		for it := range items {
			if !accepted[path.Dir(it.p)] {
				if it.f != nil {
					it.f.Close()
				}
				continue
			}
			fi, lerr := to.Lstat(it.p)
			if it.dir {
				switch {
				case lerr == nil && fi.IsDir() && copied[it.p].dir:
					accepted[it.p] = true
				case errors.Is(lerr, fs.ErrNotExist):
					if err := to.Mkdir(it.p, (it.perm|0o700)&^0o022); err == nil {
						accepted[it.p] = true
					}
				}
				continue
			}
			create := errors.Is(lerr, fs.ErrNotExist)
			c, carried := copied[it.p]
			carried = carried && !c.dir
			if carried && lerr == nil {
				// Only over the caller's file the copy read, as it was.
				if id, ok := idOf(fi); !ok || id != c.from {
					carried = false
				}
			}
			var err error
			if create || (lerr == nil && fi.Mode().IsRegular() && carried) {
				// The caller's to write (a read-only file made at a name
				// would make the caller's own later write fail), never
				// writable by the caller's group (every launched program
				// is in it).
				// No more than was counted: a file another uid's process
				// grows while the copy runs stops at the size the bounds
				// took.
				err = writeFrom(io.LimitReader(it.f, it.size), to, it.p, (it.perm|0o600)&^0o022, create)
				switch {
				case err == nil:
					written++
				case errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrPermission):
					// The caller made that name meanwhile, or may not
					// write there itself: its own file or folder wins.
					err = nil
				}
			}
			it.f.Close()
			if err != nil {
				return fmt.Errorf("bring back %s: %w", it.p, err)
			}
		}
		return nil
	})
	// The reader stops (its sends answered by stop) whenever the writer
	// did not take everything.
	halt()
	rerr := <-readErr
	if werr != nil {
		return written, werr
	}
	return written, rerr
}

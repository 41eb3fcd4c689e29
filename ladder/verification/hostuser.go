package verification

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/agent"
)

// HostUser is a user of its own on this machine for commands whose code
// the graded side controls outside stage 3's sandbox (stage 1's run tool
// with --host: a review's `make` runs the submission's Makefile): an
// unused uid drawn at random, as [Host]'s trees' users are, with a folder
// of its own in /tmp (root's, 0711) that holds its HOME and the trees it
// may work on. Its commands run contained (ladder/proc) as that uid with no
// supplementary groups and in IPC and network namespaces of their own;
// after every command each process of the uid is killed and what it left
// in the shared temporary folders removed. It exists only when this
// process is root: [NewHostUser] returns nil otherwise.
type HostUser struct {
	uid int
	dir string
}

// NewHostUser draws the user and makes its folder; nil, nil when this
// process is not root (no other user can be run as). It lowers this
// process's RLIMIT_NPROC to [HostProcessLimit] as [NewHost] does. The
// caller must Close it.
func NewHostUser() (*HostUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if err := limitUserProcesses(HostProcessLimit); err != nil {
		return nil, fmt.Errorf("host user: %w", err)
	}
	ids, err := unusedIDs(1)
	if err != nil {
		return nil, fmt.Errorf("host user: %w", err)
	}
	dir, err := os.MkdirTemp("/tmp", "srb-host-user-")
	if err != nil {
		return nil, fmt.Errorf("host user: %w", err)
	}
	u := &HostUser{uid: ids[0], dir: dir}
	if err := os.Chmod(dir, 0o711); err != nil {
		u.Close()
		return nil, fmt.Errorf("host user: %w", err)
	}
	if err := os.Mkdir(u.home(), 0o700); err != nil {
		u.Close()
		return nil, fmt.Errorf("host user: %w", err)
	}
	if err := u.Give(u.home()); err != nil {
		u.Close()
		return nil, err
	}
	return u, nil
}

// UID returns the user's uid.
func (u *HostUser) UID() int { return u.uid }

// Dir returns the user's folder (root's, 0711): trees made in it and
// given to the user ([HostUser.Give]) are the user's to work in, and no
// other user's.
func (u *HostUser) Dir() string { return u.dir }

func (u *HostUser) home() string { return filepath.Join(u.dir, "home") }

// Give gives everything under dir to the user (links are not followed).
func (u *HostUser) Give(dir string) error {
	if err := chownTree(dir, u.uid); err != nil {
		return fmt.Errorf("host user: give %s: %w", dir, err)
	}
	return nil
}

// Runner returns the run tool's runner for the user (network denied)
// and the environment it reads PATH and HOME from (HOME is the user's).
func (u *HostUser) Runner() (agent.Runner, func(string) string) {
	home := u.home()
	return toolRunner{uid: u.uid}, func(name string) string {
		if name == "HOME" {
			return home
		}
		return os.Getenv(name)
	}
}

// Close kills every process of the user, removes what it left in the
// shared temporary folders and removes its folder.
func (u *HostUser) Close() error {
	if u == nil {
		return nil
	}
	sweepUser(u.uid)
	return errors.Join(clearShared(u.uid), forceRemove(u.dir))
}

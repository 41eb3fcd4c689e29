// Package source fetches a task's State A from the registry that serves
// it, repacks it canonically and keeps it in a content-addressed cache.
//
// Every kind goes through the ordinary client of its registry and reads
// the registry's location from the environment, never from srb: gomod
// uses the go command (go env GOPROXY, the checksum database), npm uses
// the npm client (its configured registry and integrity check), debian
// uses apt-get with deb-src entries derived from the system's apt sources
// (apt verifies the signed indexes), debian-binary the same apt-get with
// the system's deb entries for a binary package, url uses HTTPS with a pinned sha256,
// git uses the git client, local reads a folder or an archive.
//
// The pin of State A is the sha256 of the canonical uncompressed tar
// (internal/archive), never of compressed bytes.
package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// ErrMismatch is returned (wrapped in a *MismatchError) when State A's
// content does not have the pinned digest.
var ErrMismatch = errors.New("state A digest mismatch")

// MismatchError reports a pin that does not match what the source gave.
type MismatchError struct {
	Source string // the source, described ("debian libsodium 1.0.18-1+deb12u1")
	Want   string // the digest the task pins
	Got    string // the digest of what was fetched
	// Detail explains what is known beyond the two digests.
	Detail string
	// Bytes is true when Want and Got are digests of a url source's
	// downloaded bytes (state_a.source.sha256), not of the canonical tar.
	Bytes bool
}

// Error implements error.
func (e *MismatchError) Error() string {
	msg := fmt.Sprintf("state A from %s: the task pins sha256 %s but the canonical tar of what was fetched is %s", e.Source, e.Want, e.Got)
	if e.Bytes {
		msg = fmt.Sprintf("state A from %s: the task pins the download's sha256 %s (state_a.source.sha256) but the downloaded bytes have %s", e.Source, e.Want, e.Got)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrMismatch) hold.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Describe renders a source for messages: "gomod gopkg.in/yaml.v3@v3.0.1".
func Describe(s task.Source) string {
	switch s.Kind {
	case "gomod":
		return fmt.Sprintf("gomod %s@%s", s.Module, s.Version)
	case "npm":
		return fmt.Sprintf("npm %s@%s", s.Package, s.Version)
	case "debian":
		d := fmt.Sprintf("debian source package %s %s", s.Package, s.Version)
		if s.Suite != "" {
			d += " (" + s.Suite + ")"
		}
		return d
	case "debian-binary":
		d := fmt.Sprintf("debian binary package %s %s", s.Package, s.Version)
		if s.Subdir != "" {
			d += " (" + s.Subdir + ")"
		}
		return d
	case "url":
		return "url " + s.URL
	case "git":
		return fmt.Sprintf("git %s @ %s", s.URL, s.Commit)
	case "local":
		return "local " + s.Path
	}
	return s.Kind
}

// Key is the cache key of a source: the hex sha256 of its kind and
// parameters (and, for local sources, the resolved path), so the same
// declaration in two tasks shares one cache entry.
func Key(s task.Source, top string) string {
	b, _ := json.Marshal(struct {
		S   task.Source
		Top string
	}{s, top})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Top is the name of State A's one top-level folder in the canonical tar:
// "<project>-<version>" with anything but letters, digits, '.', '_', '+'
// and '-' replaced by '-'.
func Top(a task.StateA) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '+', r == '-':
				return r
			}
			return '-'
		}, s)
	}
	return clean(a.Project) + "-" + clean(a.Version)
}

// LimitsOf returns the bounds on unpacking s's archive: its `limits`
// over archive.DefaultLimits.
func LimitsOf(s task.Source) archive.Limits {
	var l archive.Limits
	if s.Limits != nil {
		l = archive.Limits{MaxBytes: s.Limits.MaxBytes, MaxFiles: s.Limits.MaxFiles, MaxRatio: s.Limits.MaxRatio}
	}
	return l.WithDefaults()
}

// fetcher materialises one kind of source: it leaves the upstream
// release, unpacked, in the empty folder dir (which may then hold one
// wrapper folder; the caller strips it).
type fetcher func(ctx context.Context, s task.Source, taskDir, dir string, env *Env) error

var fetchers = map[string]fetcher{
	"gomod":         fetchGoMod,
	"npm":           fetchNPM,
	"debian":        fetchDebian,
	"debian-binary": fetchDebianBinary,
	"url":           fetchURL,
	"git":           fetchGit,
	"local":         fetchLocal,
}

// Env is how the kinds reach their registries: the programs they run and
// scratch space. Zero fields take the defaults (the programs on PATH).
type Env struct {
	// Go, NPM, AptGet and Git are the clients' executables.
	Go, NPM, AptGet, Git string
	// AptHelper is apt's download helper (default
	// /usr/lib/apt/apt-helper), which fetches a Debian source tarball or
	// binary package and checks its hash.
	AptHelper string
	// AptSources is the folder of apt .sources/.list files whose deb
	// entries the private apt state mirrors, as deb-src entries for a
	// source package (default /etc/apt).
	AptSources string
	// OSRelease is the os-release file whose VERSION_CODENAME names this
	// system's release, which a debian source's suite replaces (default
	// /etc/os-release).
	OSRelease string
	// Work is scratch space for downloads (default: inside the cache).
	Work string
	// HTTPClient fetches url sources (default http.DefaultClient, which
	// honours HTTPS_PROXY and the system's certificate pool).
	HTTPClient *http.Client
	// Log receives one line per step, or nil.
	Log func(format string, args ...any)
}

func (e *Env) logf(format string, args ...any) {
	if e != nil && e.Log != nil {
		e.Log(format, args...)
	}
}

func (e *Env) prog(p, def string) string {
	if p != "" {
		return p
	}
	return def
}

func resolveLocal(taskDir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(taskDir, p)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

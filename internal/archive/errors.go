package archive

import (
	"errors"
	"fmt"
)

// Sentinels that every refusal matches with [errors.Is]. The message shown to the user
// is the entry's reason (an *[EntryError]), not the sentinel's own text.
var (
	// ErrUnsafePath: an entry's name is absolute, contains "..", a backslash or a NUL
	// byte, or is empty.
	ErrUnsafePath = errors.New("unsafe path")
	// ErrLink: a symlink or hard link would point outside the root, a hard link names
	// anything but an earlier regular file of the same archive, or an entry would be
	// written through a symlink.
	ErrLink = errors.New("unsafe link")
	// ErrSpecialFile: a character or block device, a FIFO, a socket or an entry type
	// srb does not unpack or pin.
	ErrSpecialFile = errors.New("special file")
	// ErrTooLarge: the files' contents exceed [Limits.MaxBytes], or more than 1 MiB
	// follows the end of a tar inside a compressed stream.
	ErrTooLarge = errors.New("archive too large")
	// ErrTooManyFiles: the archive has more entries than [Limits.MaxFiles].
	ErrTooManyFiles = errors.New("too many files")
	// ErrDuplicate: two entries have the same path (two directory entries are allowed).
	ErrDuplicate = errors.New("duplicate entry")
	// ErrFormat: the content is not an archive format srb unpacks, or is malformed.
	ErrFormat = errors.New("unrecognised archive format")
	// ErrNotEmpty: the extraction destination exists and is not an empty directory.
	ErrNotEmpty = errors.New("destination not empty")
)

// EntryError is a refusal or failure tied to one entry of an archive or tree. Its text is
// `Op: entry "Entry": reason`, for example
// `extract: entry "../../etc/passwd": path escapes the root`.
type EntryError struct {
	Op    string // "extract" or "canonical"
	Entry string // the entry's name as it appears in the archive, or its path in the tree
	Err   error  // the reason; matches a sentinel with errors.Is
}

// Error returns `Op: entry "Entry": reason`.
func (e *EntryError) Error() string {
	return fmt.Sprintf("%s: entry %q: %v", e.Op, e.Entry, e.Err)
}

// Unwrap returns the reason, so errors.Is finds the sentinel.
func (e *EntryError) Unwrap() error { return e.Err }

// reasonError is a message of its own that still matches a sentinel.
type reasonError struct {
	sentinel error
	msg      string
}

// Error implements error.
func (e *reasonError) Error() string { return e.msg }

// Is makes errors.Is match the sentinel this error stands for.
func (e *reasonError) Is(target error) bool { return target == e.sentinel }

// reason builds an error whose text is the formatted message and which matches sentinel.
func reason(sentinel error, format string, args ...any) error {
	return &reasonError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

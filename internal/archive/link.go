package archive

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// maxLinkHops bounds symlink chains while resolving, as the kernel's ELOOP does.
const maxLinkHops = 40

// checkLink resolves the symlink name inside root the way the kernel would, and refuses
// it when any step would leave the root. A dangling link is fine as long as its remaining
// components stay inside lexically. The lexical check alone is not enough: with
// `a/s -> ..`, the link `a/l -> s/../x` is lexically `a/x` but really `../x`.
func checkLink(root *os.Root, name string) error {
	target, err := root.Readlink(name)
	if err != nil {
		return err
	}
	if strings.HasPrefix(target, "/") {
		return reason(ErrLink, "symlink to the absolute path %q", target)
	}
	var stack []string
	if p := parent(name); p != "" {
		stack = strings.Split(p, "/")
	}
	queue := strings.Split(target, "/")
	hops := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return reason(ErrLink, "symlink target %q escapes the root", target)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		p := strings.Join(append(stack, c), "/")
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			stack = append(stack, c)
		case err != nil:
			// Through a file, or a link that os.Root itself refuses: not resolvable
			// inside the root.
			if isEscape(err) {
				return reason(ErrLink, "symlink target %q escapes the root", target)
			}
			stack = append(stack, c)
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > maxLinkHops {
				return reason(ErrLink, "symlink target %q: too many levels of symlinks", target)
			}
			t, err := root.Readlink(p)
			if err != nil {
				return err
			}
			if strings.HasPrefix(t, "/") {
				return reason(ErrLink, "symlink target %q goes through %q, a symlink to the absolute path %q", target, p, t)
			}
			queue = append(strings.Split(t, "/"), queue...)
		default:
			stack = append(stack, c)
		}
	}
	return nil
}

// isEscape reports whether an os.Root error says a path escapes the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

package source

import (
	"errors"
	"fmt"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// TestRefused: an archive srb refuses is the task's source's fault (exit
// 2), any other error is not.
func TestRefused(t *testing.T) {
	for _, err := range []error{archive.ErrTooLarge, fmt.Errorf("state A: %w", archive.ErrUnsafePath), archive.ErrFormat} {
		if !Refused(err) {
			t.Errorf("%v: not refused", err)
		}
	}
	if Refused(errors.New("dial tcp: connection refused")) {
		t.Error("a network error counted as a refused archive")
	}
}

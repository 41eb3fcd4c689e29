package notice

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// fixtureArchive packs the fixture task's State A (testdata/statea/tally-1.0,
// a local MIT-licensed folder) into a cache under a temporary folder and
// returns the archive's path.
func fixtureArchive(tb testing.TB) string {
	tb.Helper()
	c := &source.Cache{Dir: tb.TempDir()}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "statea", "tally-1.0"))
	if err != nil {
		tb.Fatal(err)
	}
	e, err := c.Materialise(context.Background(), task.StateA{Project: "tally", Version: "1.0", Source: task.Source{Kind: "local", Path: dir}}, ".", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return e.Archive
}

func sortTerms(ts []OtherTerm) []OtherTerm {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Path < ts[j].Path })
	return ts
}

func sortStrings(xs []string) { sort.Strings(xs) }

func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// fmtSscanHunk reads "@@ -as,an +bs,bn @@" (a count of 1 may be left out).
func fmtSscanHunk(line string, as, an, bs, bn *int) (int, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, fmt.Errorf("short")
	}
	parse := func(s string, start, n *int) error {
		*n = 1
		if i := strings.IndexByte(s, ','); i >= 0 {
			if _, err := fmt.Sscanf(s[i+1:], "%d", n); err != nil {
				return err
			}
			s = s[:i]
		}
		_, err := fmt.Sscanf(s, "%d", start)
		return err
	}
	if err := parse(f[1][1:], as, an); err != nil {
		return 0, err
	}
	return 4, parse(f[2][1:], bs, bn)
}

package cli

import (
	"testing"
)

// TestNewCmdNotice parses argv into NoticeOptions through runF, or fails
// with the exact usage error.
func TestNewCmdNotice(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    NoticeOptions
		wantErr string
	}{
		{args: nil, want: NoticeOptions{}},
		{args: []string{"--check"}, want: NoticeOptions{Check: true}},
		{args: []string{"--check", "--json", "--cache", "/c"}, want: NoticeOptions{Check: true, JSON: true, Cache: "/c"}},
		{args: []string{"--check=false", "--json"}, want: NoticeOptions{JSON: true}},
		{args: []string{"extra"}, wantErr: "notice: takes no arguments, got 1 argument (extra) (usage: notice [flags]; see notice --help)"},
	} {
		got, err := parseCmd(NewCmdNotice, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if got == nil {
			t.Fatalf("%q: runF not called", c.args)
		}
		if got.Check != c.want.Check || got.JSON != c.want.JSON || got.Cache != c.want.Cache {
			t.Errorf("%q: got %+v, want %+v", c.args, *got, c.want)
		}
	}
}

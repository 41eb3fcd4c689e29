package campaign

import (
	"fmt"
	"os"
	"strings"
)

// LoadReport loads the campaign folder root ([Load]) and summarises it
// ([Summarize]). root that is not a folder, or holds no run at all, is an
// error naming it (with the first five layout problems, which say where
// the folder went wrong); so is Load's.
func LoadReport(root string) (*Report, error) {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("campaign: %s is not a folder", root)
	}
	c, err := Load(root)
	if err != nil {
		return nil, err
	}
	// With no run at all there is nothing to report: the folder is the
	// wrong one (often one level too deep or too shallow), and its layout
	// problems say where it went wrong.
	if len(c.Runs) == 0 {
		var b strings.Builder
		for i, p := range c.Problems {
			if i == 5 {
				fmt.Fprintf(&b, "\n  … and %d more", len(c.Problems)-i)
				break
			}
			fmt.Fprintf(&b, "\n  %s: %s", p.Path, p.Msg)
		}
		return nil, fmt.Errorf("campaign: no run under %s (runs are <task>/<configuration>/<run>/score.json)%s", root, b.String())
	}
	return Summarize(c), nil
}

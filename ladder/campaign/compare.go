package campaign

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

// Move is one run present in both campaigns (matched by its folder,
// <task>/<configuration>/<run>) whose outcome or score changed.
type Move struct {
	Dir       string  `json:"dir"`
	Task      string  `json:"task"`
	Config    string  `json:"configuration"`
	From      Outcome `json:"from"`
	To        Outcome `json:"to"`
	FromScore float64 `json:"from_score"`
	ToScore   float64 `json:"to_score"`
}

// Delta is one group's (or the whole campaign's) funnel before and after.
type Delta struct {
	Before Funnel `json:"before"`
	After  Funnel `json:"after"`
}

// Diff is what changed from campaign A to campaign B: the runs whose
// outcome or score moved, the runs only one of them has, and the funnel,
// by task and by configuration, before and after (groups whose funnel is
// unchanged are left out).
type Diff struct {
	A        string           `json:"a"`
	B        string           `json:"b"`
	Funnel   Delta            `json:"funnel"`
	Moved    []Move           `json:"moved"`
	OnlyA    []string         `json:"only_in_a"`
	OnlyB    []string         `json:"only_in_b"`
	ByTask   map[string]Delta `json:"by_task"`
	ByConfig map[string]Delta `json:"by_config"`
}

// Compare says what changed from a to b.
func Compare(a, b *Report) *Diff {
	d := &Diff{A: a.Root, B: b.Root, Funnel: Delta{a.Funnel, b.Funnel}, Moved: []Move{}, OnlyA: []string{}, OnlyB: []string{},
		ByTask: map[string]Delta{}, ByConfig: map[string]Delta{}}
	inB := map[string]*Run{}
	for _, r := range b.Runs {
		inB[r.Dir] = r
	}
	seen := map[string]bool{}
	for _, r := range a.Runs {
		seen[r.Dir] = true
		o, ok := inB[r.Dir]
		if !ok {
			d.OnlyA = append(d.OnlyA, r.Dir)
			continue
		}
		if o.Outcome != r.Outcome || o.Score != r.Score {
			d.Moved = append(d.Moved, Move{r.Dir, r.Task, r.Config, r.Outcome, o.Outcome, r.Score, o.Score})
		}
	}
	for _, r := range b.Runs {
		if !seen[r.Dir] {
			d.OnlyB = append(d.OnlyB, r.Dir)
		}
	}
	deltas := func(x, y map[string]Funnel, out map[string]Delta) {
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for k := range keys {
			if !sameFunnel(x[k], y[k]) {
				out[k] = Delta{x[k], y[k]}
			}
		}
	}
	deltas(a.ByTask, b.ByTask, d.ByTask)
	deltas(configFunnels(a), configFunnels(b), d.ByConfig)
	return d
}

func configFunnels(r *Report) map[string]Funnel {
	out := map[string]Funnel{}
	for k, v := range r.ByConfig {
		out[k] = v.Funnel
	}
	return out
}

func sameFunnel(x, y Funnel) bool {
	mx, my := x.MeanScore, y.MeanScore
	x.MeanScore, y.MeanScore = nil, nil
	if x != y {
		return false
	}
	return (mx == nil) == (my == nil) && (mx == nil || *mx == *my)
}

// WriteDiffText writes d as text: the funnel before and after, the groups
// that changed, and each run that moved.
func WriteDiffText(w io.Writer, d *Diff) error {
	fmt.Fprintf(w, "Campaign %s → %s\n\n", d.A, d.B)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t\n", funnelHead)
	fmt.Fprintf(tw, "A\t%s\t\n", funnelRow(d.Funnel.Before, 2))
	fmt.Fprintf(tw, "B\t%s\t\n", funnelRow(d.Funnel.After, 2))
	tw.Flush()
	for _, g := range []struct {
		title string
		m     map[string]Delta
	}{{"By task", d.ByTask}, {"By configuration", d.ByConfig}} {
		if len(g.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (changed only: accepted and mean score, A → B)\n", g.title)
		var keys []string
		for k := range g.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := g.m[k]
			fmt.Fprintf(w, "  %s: runs %d → %d, accepted %d → %d, mean %s → %s\n", k, x.Before.Runs, x.After.Runs,
				x.Before.Accepted, x.After.Accepted, fmtMean(x.Before.MeanScore, 2), fmtMean(x.After.MeanScore, 2))
		}
	}
	fmt.Fprintf(w, "\nRuns whose outcome moved (%d)\n", len(d.Moved))
	for _, m := range d.Moved {
		fmt.Fprintf(w, "  %s: %s (%g) → %s (%g)\n", m.Dir, m.From, m.FromScore, m.To, m.ToScore)
	}
	for _, s := range []struct {
		title string
		l     []string
	}{{"Only in A", d.OnlyA}, {"Only in B", d.OnlyB}} {
		if len(s.l) > 0 {
			fmt.Fprintf(w, "\n%s (%d)\n", s.title, len(s.l))
			for _, x := range s.l {
				fmt.Fprintf(w, "  %s\n", x)
			}
		}
	}
	return nil
}

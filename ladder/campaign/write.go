package campaign

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes rep as indented JSON (the keys of [Report]).
func WriteJSON(w io.Writer, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// CSVHeader is the header row of WriteCSV.
var CSVHeader = []string{"task", "class", "configuration", "run", "model", "effort", "agent", "agent_version", "attempt",
	"outcome", "score", "audit_gate", "stage2_rate", "stage2_complete", "stage3_ran", "adversaries", "survived", "breaks",
	"calls", "input_tokens", "output_tokens", "credits", "reason", "dir"}

// WriteCSV writes one row per run (invalid runs included, with outcome
// "invalid", an empty score and the reason), under CSVHeader.
func WriteCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rep.Runs {
		attempt, score := "", ""
		if r.Meta.Attempt > 0 {
			attempt = strconv.Itoa(r.Meta.Attempt)
		}
		if r.Valid() {
			score = strconv.FormatFloat(r.Score, 'f', -1, 64)
		}
		calls, in, out, credits := "", "", "", ""
		if c := r.Cost; c != nil {
			calls, in, out = strconv.FormatInt(c.Calls, 10), strconv.FormatInt(c.InputTokens, 10), strconv.FormatInt(c.OutputTokens, 10)
			if c.Credits != nil {
				credits = strconv.FormatFloat(*c.Credits, 'f', -1, 64)
			}
		}
		row := []string{r.Task, r.Class, r.Config, r.Name, r.Meta.Model, r.Meta.Effort, r.Meta.Agent, r.Meta.AgentVersion, attempt,
			string(r.Outcome), score, r.AuditGate, strconv.FormatFloat(r.Stage2Rate, 'f', -1, 64), strconv.FormatBool(r.Stage2Complete),
			strconv.FormatBool(r.Stage3Ran), strconv.Itoa(r.Adversaries), strconv.Itoa(r.Survived), strings.Join(r.Breaks, " "),
			calls, in, out, credits, r.Reason, r.Dir}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// funnelRow is a funnel as table cells: runs, migrated, all tests pass,
// blindness, reached stage 3, accepted, mean score (meanDec decimals),
// tasks never accepted.
func funnelRow(f Funnel, meanDec int) string {
	return fmt.Sprintf("%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d", f.Runs, f.Migrated, f.AllTestsPass, f.Blindness, f.ReachedStage3,
		f.Accepted, fmtMean(f.MeanScore, meanDec), f.TasksNeverAccepted)
}

const funnelHead = "runs\tmigrated\tall tests pass\tblindness\treached stage 3\taccepted\tmean\tnever accepted"

// WriteText writes the report as the paper's tables: the funnel, the
// outcome classes, scores by configuration, by debt class and by task, the
// adversaries' breaks, grading cost, the configuration × task matrix, and
// the invalid, duplicate and missing runs.
func WriteText(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	flush := func() { tw.Flush() }

	f := rep.Funnel
	fmt.Fprintf(w, "Campaign %s: %d valid run(s) of %d configuration(s) (%d model(s)) on %d task(s); %d invalid run(s) counted apart\n\n",
		rep.Root, f.Runs, len(rep.ByConfig), rep.Models, len(rep.ByTask), len(rep.Invalid))

	fmt.Fprintln(w, "Funnel")
	p("\t%s\t\n", funnelHead)
	p("all\t%s\t\n", funnelRow(f, 2))
	flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "Outcomes")
	p("class\truns\tshare\t\n")
	for _, o := range Outcomes {
		p("%s\t%d\t%s\t\n", o, rep.Outcomes[o], pct(rep.Outcomes[o], f.Runs))
	}
	p("%s\t%d\t(apart)\t\n", Invalid, rep.Outcomes[Invalid])
	flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "By configuration (mean score, descending)")
	cfgs := make([]string, 0, len(rep.ByConfig))
	for c := range rep.ByConfig {
		cfgs = append(cfgs, c)
	}
	sort.Slice(cfgs, func(i, j int) bool {
		a, b := rep.ByConfig[cfgs[i]].Score, rep.ByConfig[cfgs[j]].Score
		if *a != *b {
			return *a > *b
		}
		return cfgs[i] < cfgs[j]
	})
	p("configuration\tscore\t%s\t\n", funnelHead)
	for _, c := range cfgs {
		row := rep.ByConfig[c]
		p("%s\t%s\t%s\t\n", c, fmtMean(row.Score, 2), funnelRow(row.Funnel, 2))
	}
	flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "By debt class")
	p("class\t%s\t\n", funnelHead)
	for _, c := range rep.classOrder {
		p("%s\t%s\t\n", c, funnelRow(rep.ByClass[c], 1))
	}
	flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "By task")
	p("task\tclass\t%s\t\n", funnelHead)
	for _, t := range rep.Matrix.Tasks {
		if row, ok := rep.ByTask[t]; ok {
			p("%s\t%s\t%s\t\n", t, rep.taskClass[t], funnelRow(row, 1))
		}
	}
	flush()
	fmt.Fprintln(w)

	if len(rep.Adversaries) > 0 {
		fmt.Fprintln(w, "Adversaries' breaks")
		p("adversary\tbreaks\trounds\ttasks broken\t\n")
		for _, a := range rep.Adversaries {
			p("%s\t%d\t%d\t%d\t\n", a.Adversary, a.Breaks, a.Rounds, len(a.BrokenTasks))
		}
		flush()
		fmt.Fprintln(w)
	}

	if len(rep.Cost) > 0 {
		fmt.Fprintln(w, "Grading cost (srb telemetry) by configuration")
		p("configuration\truns\tcalls\tinput tokens\toutput tokens\tcredits\taccepted\tinput tokens / accepted\tcredits / accepted\t\n")
		var names []string
		for c := range rep.Cost {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			row := rep.Cost[c]
			perIn, perCr := "–", "–"
			if row.PerAccepted != nil {
				perIn = strconv.FormatInt(row.PerAccepted.InputTokens, 10)
				perCr = fmtMean(row.PerAccepted.Credits, 2)
			}
			p("%s\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%s\t\n", c, row.Runs, row.Total.Calls, row.Total.InputTokens, row.Total.OutputTokens,
				fmtMean(row.Total.Credits, 2), row.Accepted, perIn, perCr)
		}
		flush()
		fmt.Fprintln(w)
	}

	writeMatrix(w, rep)

	if len(rep.Invalid) > 0 {
		fmt.Fprintf(w, "Invalid runs (%d, counted apart, never as zeros)\n", len(rep.Invalid))
		for _, r := range rep.Invalid {
			fmt.Fprintf(w, "  %s: %s\n", r.Dir, r.Reason)
		}
		fmt.Fprintln(w)
	}
	if len(rep.Duplicates) > 0 {
		fmt.Fprintf(w, "Duplicate runs (%d)\n", len(rep.Duplicates))
		for _, d := range rep.Duplicates {
			fmt.Fprintf(w, "  %s: %s\n", d.Key, strings.Join(d.Dirs, ", "))
		}
		fmt.Fprintln(w)
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "Missing runs (%d)\n", len(rep.Missing))
		for _, m := range rep.Missing {
			if m.Dir != "" {
				fmt.Fprintf(w, "  %s: %s\n", m.Dir, m.Problem)
			} else {
				fmt.Fprintf(w, "  %s × %s: %s\n", m.Config, m.Task, m.Problem)
			}
		}
	}
	return nil
}

// writeMatrix prints the configuration × task matrix: each cell is the
// mean score of its valid runs, "·" when nobody ran it; a "*" marks a cell
// with an accepted run, "+N" N valid runs beyond the first (0+1 is two
// valid runs averaging 0), and "!N" N invalid runs, alone or beside valid
// ones, so that no invalid verdict is hidden in a cell.
func writeMatrix(w io.Writer, rep *Report) {
	m := rep.Matrix
	if len(m.Tasks) == 0 {
		return
	}
	fmt.Fprintln(w, "Configuration × task (mean score of the valid runs; * an accepted run, +N N more valid runs (0+1: two runs, mean 0), !N N invalid runs, · not run; tasks numbered below)")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for j := range m.Tasks {
		fmt.Fprintf(tw, "%d\t", j+1)
	}
	fmt.Fprintln(tw)
	for i, c := range m.Configs {
		fmt.Fprintf(tw, "%s\t", c)
		for j := range m.Tasks {
			cell := m.Cells[i][j]
			s := matrixCell(cell)
			fmt.Fprintf(tw, "%s\t", s)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for j, t := range m.Tasks {
		fmt.Fprintf(w, "  %2d %s\n", j+1, t)
	}
	fmt.Fprintln(w)
}

// matrixCell is one cell of the text matrix (see writeMatrix): "·", or the
// valid runs' mean with "*" and "+N", then "!N" for invalid runs.
func matrixCell(cell Cell) string {
	if cell.Runs+cell.Invalid == 0 {
		return "·"
	}
	s := ""
	if cell.Runs > 0 {
		s = fmtMean(cell.MeanScore, 0)
		if cell.Accepted > 0 {
			s += "*"
		}
		if cell.Runs > 1 {
			s += fmt.Sprintf("+%d", cell.Runs-1)
		}
	}
	if cell.Invalid > 0 {
		s += fmt.Sprintf("!%d", cell.Invalid)
	}
	return s
}

package campaign

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Funnel is the paper's funnel over a set of valid runs (Tables 2, 4, 5).
// Runs counts valid runs only; Migrated those that passed the audit gate;
// AllTestsPass those whose stage 2 reached 100 %, counted or not;
// Blindness those stopped by the audit gate with stage 2 at 100 %;
// ReachedStage3 those whose stage 3 ran; Accepted those that scored 100.
// MeanScore is the mean published score (0–100) rounded to 2 decimals, nil
// when there is no valid run. TasksNeverAccepted counts the tasks with a
// valid run and no accepted one.
type Funnel struct {
	Runs               int      `json:"runs"`
	Migrated           int      `json:"migrated"`
	AllTestsPass       int      `json:"all_tests_pass"`
	Blindness          int      `json:"blindness"`
	ReachedStage3      int      `json:"reached_stage3"`
	Accepted           int      `json:"accepted"`
	MeanScore          *float64 `json:"mean_score"`
	TasksNeverAccepted int      `json:"tasks_never_accepted"`
}

// ConfigRow is one configuration's funnel, with Score the mean score (the
// same figure as MeanScore, under the name the paper's Table 3 uses).
type ConfigRow struct {
	Funnel
	Score *float64 `json:"score"`
}

// AdversaryRow is how often one adversary broke a submission: Breaks is the
// number of runs it broke, Rounds the stage-3 rounds recorded for it (0
// when the verdicts record no rounds), BrokenTasks the tasks it broke at
// least once.
type AdversaryRow struct {
	Adversary   string   `json:"adversary"`
	Breaks      int      `json:"breaks"`
	Rounds      int      `json:"rounds"`
	BrokenTasks []string `json:"broken_tasks"`
}

// CostRow is one configuration's grading cost: Runs counts its valid runs
// that record a cost, Total sums them, Accepted counts its accepted runs
// and PerAccepted is Total divided by Accepted (nil when none was
// accepted).
type CostRow struct {
	Runs        int   `json:"runs"`
	Total       Cost  `json:"total"`
	Accepted    int   `json:"accepted"`
	PerAccepted *Cost `json:"per_accepted"`
}

// InvalidRun is a run counted apart, with why it does not count.
type InvalidRun struct {
	Dir    string `json:"dir"`
	Task   string `json:"task"`
	Config string `json:"configuration"`
	Reason string `json:"reason"`
}

// Duplicate names the run folders that claim one (task, configuration,
// attempt): Key is "task / configuration / attempt N" (or the run folder's
// name when no attempt is recorded).
type Duplicate struct {
	Key  string   `json:"key"`
	Dirs []string `json:"dirs"`
}

// Missing is a configuration × task cell that no run fills (Dir empty), or
// a run folder with no score.json (Dir set, Problem saying so).
type Missing struct {
	Task    string `json:"task,omitempty"`
	Config  string `json:"configuration,omitempty"`
	Dir     string `json:"dir,omitempty"`
	Problem string `json:"problem"`
}

// Cell is one configuration × task cell of the matrix: its valid and
// invalid run counts, its accepted runs, and the mean score of its valid
// runs (nil when there is none).
type Cell struct {
	Runs      int      `json:"runs"`
	Invalid   int      `json:"invalid"`
	Accepted  int      `json:"accepted"`
	MeanScore *float64 `json:"mean_score"`
}

// Matrix is who ran what: Cells[i][j] is configuration Configs[i] on task
// Tasks[j] (both sorted; tasks by class, then id).
type Matrix struct {
	Configs []string `json:"configs"`
	Tasks   []string `json:"tasks"`
	Cells   [][]Cell `json:"cells"`
}

// Report is a campaign's aggregates; its JSON form is srb campaign --json.
type Report struct {
	Root        string               `json:"root"`
	Models      int                  `json:"models"`
	Funnel      Funnel               `json:"funnel"`
	ByClass     map[string]Funnel    `json:"by_class"`
	ByTask      map[string]Funnel    `json:"by_task"`
	ByConfig    map[string]ConfigRow `json:"by_config"`
	Outcomes    map[Outcome]int      `json:"outcomes"`
	Adversaries []AdversaryRow       `json:"adversaries"`
	Cost        map[string]CostRow   `json:"cost"`
	Invalid     []InvalidRun         `json:"invalid"`
	Duplicates  []Duplicate          `json:"duplicates"`
	Missing     []Missing            `json:"missing"`
	Matrix      Matrix               `json:"matrix"`
	Runs        []*Run               `json:"runs"`
	taskClass   map[string]string    // task → class
	classOrder  []string             // classes present, in the paper's order
}

// round2 rounds to 2 decimals.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// funnelOf aggregates valid runs.
func funnelOf(runs []*Run) Funnel {
	var f Funnel
	sum := 0.0
	tasks := map[string]bool{}
	for _, r := range runs {
		if !r.Valid() {
			continue
		}
		f.Runs++
		sum += r.Score
		if _, ok := tasks[r.Task]; !ok {
			tasks[r.Task] = false
		}
		switch r.Outcome {
		case Blindness:
			f.Blindness++
			f.AllTestsPass++
		case StoppedStage2:
			f.Migrated++
		case Counterexample:
			f.Migrated++
			f.AllTestsPass++
			f.ReachedStage3++
		case Accepted:
			f.Migrated++
			f.AllTestsPass++
			f.ReachedStage3++
			f.Accepted++
			tasks[r.Task] = true
		}
	}
	if f.Runs > 0 {
		m := round2(sum / float64(f.Runs))
		f.MeanScore = &m
	}
	for _, acc := range tasks {
		if !acc {
			f.TasksNeverAccepted++
		}
	}
	return f
}

// Summarize aggregates a campaign.
func Summarize(c *Campaign) *Report {
	rep := &Report{
		Root: c.Root, ByClass: map[string]Funnel{}, ByTask: map[string]Funnel{}, ByConfig: map[string]ConfigRow{},
		Outcomes: map[Outcome]int{}, Adversaries: []AdversaryRow{}, Cost: map[string]CostRow{},
		Invalid: []InvalidRun{}, Duplicates: []Duplicate{}, Missing: []Missing{}, Runs: c.Runs,
		taskClass: map[string]string{},
	}
	if rep.Runs == nil {
		rep.Runs = []*Run{}
	}
	rep.Funnel = funnelOf(c.Runs)
	byClass, byTask, byConfig := map[string][]*Run{}, map[string][]*Run{}, map[string][]*Run{}
	models := map[string]bool{}
	for _, r := range c.Runs {
		rep.Outcomes[r.Outcome]++
		rep.taskClass[r.Task] = r.Class
		byTask[r.Task] = append(byTask[r.Task], r)
		byConfig[r.Config] = append(byConfig[r.Config], r)
		if !r.Valid() {
			rep.Invalid = append(rep.Invalid, InvalidRun{r.Dir, r.Task, r.Config, r.Reason})
			continue
		}
		byClass[r.Class] = append(byClass[r.Class], r)
		m := r.Meta.Model
		if m == "" {
			m = r.Config
		}
		models[m] = true
	}
	rep.Models = len(models)
	for k, runs := range byClass {
		rep.ByClass[k] = funnelOf(runs)
	}
	for k, runs := range byTask {
		if f := funnelOf(runs); f.Runs > 0 {
			rep.ByTask[k] = f
		}
	}
	for k, runs := range byConfig {
		if f := funnelOf(runs); f.Runs > 0 {
			rep.ByConfig[k] = ConfigRow{Funnel: f, Score: f.MeanScore}
		}
	}
	rep.classOrder = classOrder(rep.ByClass)

	// Adversaries.
	adv := map[string]*AdversaryRow{}
	get := func(a string) *AdversaryRow {
		if adv[a] == nil {
			adv[a] = &AdversaryRow{Adversary: a, BrokenTasks: []string{}}
		}
		return adv[a]
	}
	for _, r := range c.Runs {
		if !r.Valid() {
			continue
		}
		for _, a := range r.Played {
			get(a).Rounds++
		}
		for _, a := range r.Breaks {
			row := get(a)
			row.Breaks++
			if len(row.BrokenTasks) == 0 || row.BrokenTasks[len(row.BrokenTasks)-1] != r.Task {
				row.BrokenTasks = append(row.BrokenTasks, r.Task)
			}
		}
	}
	for _, row := range adv {
		sort.Strings(row.BrokenTasks)
		row.BrokenTasks = compactStrings(row.BrokenTasks)
		rep.Adversaries = append(rep.Adversaries, *row)
	}
	sort.Slice(rep.Adversaries, func(i, j int) bool {
		a, b := rep.Adversaries[i], rep.Adversaries[j]
		if a.Breaks != b.Breaks {
			return a.Breaks > b.Breaks
		}
		return a.Adversary < b.Adversary
	})

	// Cost per configuration and per accepted run.
	for cfg, runs := range byConfig {
		var row CostRow
		for _, r := range runs {
			if !r.Valid() {
				continue
			}
			if r.Outcome == Accepted {
				row.Accepted++
			}
			if r.Cost != nil {
				row.Runs++
				row.Total.add(r.Cost)
			}
		}
		if row.Runs == 0 {
			continue
		}
		if row.Accepted > 0 {
			n := float64(row.Accepted)
			per := &Cost{Calls: row.Total.Calls / int64(row.Accepted), InputTokens: row.Total.InputTokens / int64(row.Accepted),
				OutputTokens: row.Total.OutputTokens / int64(row.Accepted), Seconds: round2(row.Total.Seconds / n)}
			if row.Total.Credits != nil {
				v := round2(*row.Total.Credits / n)
				per.Credits = &v
			}
			row.PerAccepted = per
		}
		row.Total.Seconds = round2(row.Total.Seconds)
		if row.Total.Credits != nil {
			v := round2(*row.Total.Credits)
			row.Total.Credits = &v
		}
		rep.Cost[cfg] = row
	}

	// Duplicates: two run folders claiming one (task, configuration, attempt).
	claims := map[string][]string{}
	var keys []string
	for _, r := range c.Runs {
		k := r.Task + " / " + r.Config + " / "
		if r.Meta.Attempt > 0 {
			k += "attempt " + strconv.Itoa(r.Meta.Attempt)
		} else {
			k += r.Name
		}
		if claims[k] == nil {
			keys = append(keys, k)
		}
		claims[k] = append(claims[k], r.Dir)
	}
	for _, k := range keys {
		if len(claims[k]) > 1 {
			rep.Duplicates = append(rep.Duplicates, Duplicate{Key: k, Dirs: claims[k]})
		}
	}

	// The matrix, and the cells nobody filled.
	rep.Matrix = buildMatrix(rep, byTask)
	for i, cfg := range rep.Matrix.Configs {
		for j, t := range rep.Matrix.Tasks {
			if cell := rep.Matrix.Cells[i][j]; cell.Runs+cell.Invalid == 0 {
				rep.Missing = append(rep.Missing, Missing{Task: t, Config: cfg, Problem: "no run of this configuration on this task"})
			}
		}
	}
	for _, p := range c.Problems {
		rep.Missing = append(rep.Missing, Missing{Dir: p.Path, Problem: p.Msg})
	}
	return rep
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// classOrder is the classes present, the paper's first, then the others
// sorted.
func classOrder(by map[string]Funnel) []string {
	var out []string
	for _, c := range Classes {
		if _, ok := by[c]; ok {
			out = append(out, c)
		}
	}
	var rest []string
	for c := range by {
		known := false
		for _, k := range Classes {
			known = known || k == c
		}
		if !known {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// classRank is a class's position in the paper's order (unknown classes
// after).
func classRank(c string) int {
	for i, k := range Classes {
		if k == c {
			return i
		}
	}
	return len(Classes)
}

func buildMatrix(rep *Report, byTask map[string][]*Run) Matrix {
	var m Matrix
	for t := range byTask {
		m.Tasks = append(m.Tasks, t)
	}
	sort.Slice(m.Tasks, func(i, j int) bool {
		a, b := m.Tasks[i], m.Tasks[j]
		if ra, rb := classRank(rep.taskClass[a]), classRank(rep.taskClass[b]); ra != rb {
			return ra < rb
		}
		return a < b
	})
	cfgs := map[string]bool{}
	for _, runs := range byTask {
		for _, r := range runs {
			cfgs[r.Config] = true
		}
	}
	for c := range cfgs {
		m.Configs = append(m.Configs, c)
	}
	sort.Strings(m.Configs)
	ci, ti := map[string]int{}, map[string]int{}
	for i, c := range m.Configs {
		ci[c] = i
	}
	for j, t := range m.Tasks {
		ti[t] = j
	}
	m.Cells = make([][]Cell, len(m.Configs))
	sums := make([][]float64, len(m.Configs))
	for i := range m.Cells {
		m.Cells[i] = make([]Cell, len(m.Tasks))
		sums[i] = make([]float64, len(m.Tasks))
	}
	for _, runs := range byTask {
		for _, r := range runs {
			i, j := ci[r.Config], ti[r.Task]
			cell := &m.Cells[i][j]
			if !r.Valid() {
				cell.Invalid++
				continue
			}
			cell.Runs++
			sums[i][j] += r.Score
			if r.Outcome == Accepted {
				cell.Accepted++
			}
		}
	}
	for i := range m.Cells {
		for j := range m.Cells[i] {
			if n := m.Cells[i][j].Runs; n > 0 {
				v := round2(sums[i][j] / float64(n))
				m.Cells[i][j].MeanScore = &v
			}
		}
	}
	if m.Configs == nil {
		m.Configs, m.Tasks, m.Cells = []string{}, []string{}, [][]Cell{}
	}
	return m
}

// ClassOrder is the debt classes the report has runs for, in the paper's
// order (build, framework, platform, language), then any other.
func (rep *Report) ClassOrder() []string { return rep.classOrder }

// TaskClass is the debt class of a task the report has runs for.
func (rep *Report) TaskClass(task string) string { return rep.taskClass[task] }

// fmtMean prints a mean with the given decimals, "–" when nil.
func fmtMean(m *float64, decimals int) string {
	if m == nil {
		return "–"
	}
	return strconv.FormatFloat(*m, 'f', decimals, 64)
}

// pct is n of d as a percentage with one decimal ("–" when d is 0).
func pct(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

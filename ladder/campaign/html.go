package campaign

import (
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// ReachableScores are the scores formula (4) can publish, the columns of
// the score distribution.
var ReachableScores = []float64{0, 40, 50, 60, 70, 80, 90, 100}

// scoreColours colour the reachable scores, 0 to 100.
var scoreColours = []string{"#c8c8c8", "#fde0c5", "#facba6", "#f8b58b", "#f59e72", "#eb7f54", "#d5603b", "#2e7d32"}

const pageCSS = `body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
svg{display:block;margin:8px 0}svg text{font-size:11px;font-family:system-ui,sans-serif}
.note{color:#666;font-size:12px}`

// WriteHTML writes rep as one self-contained page (inline CSS and SVG, no
// script, nothing fetched): the funnel table, and four figures, each an
// <svg> with an id: "funnel" (a bar per funnel stage), "classes" (mean
// score per debt class), "distribution" (per configuration, its runs at
// each reachable score) and "heatmap" (configuration × task, the cell's
// mean score). Every bar and cell carries its figure in data-* attributes
// and a <title>, so the page can be checked without reading pixels.
func WriteHTML(w io.Writer, rep *Report, title string) error {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head><body>\n", e(title), pageCSS)
	f := rep.Funnel
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"note\">%d valid run(s) of %d configuration(s) (%d model(s)) on %d task(s); %d invalid run(s) counted apart, never as zeros.</p>\n",
		e(title), f.Runs, len(rep.ByConfig), rep.Models, len(rep.ByTask), len(rep.Invalid))

	b.WriteString("<h2>Funnel</h2>\n<table id=\"funnel-table\"><tr><th>runs</th><th>migrated</th><th>all tests pass</th><th>blindness</th><th>reached stage 3</th><th>accepted</th><th>mean score</th><th>tasks never accepted</th></tr>\n")
	fmt.Fprintf(&b, "<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%d</td></tr></table>\n",
		f.Runs, f.Migrated, f.AllTestsPass, f.Blindness, f.ReachedStage3, f.Accepted, fmtMean(f.MeanScore, 2), f.TasksNeverAccepted)
	funnelSVG(&b, f)

	b.WriteString("<h2>Mean score by debt class</h2>\n")
	classSVG(&b, rep)
	b.WriteString("<h2>Score distribution by configuration</h2>\n")
	distributionSVG(&b, rep)
	b.WriteString("<h2>Configuration × task</h2>\n<p class=\"note\">Each cell is the mean score of the configuration's valid runs on the task; white is 0, dark green 100; grey: not run; hatched: only invalid runs; a red outline: invalid runs beside the valid ones.</p>\n")
	heatmapSVG(&b, rep)

	if len(rep.Invalid) > 0 {
		fmt.Fprintf(&b, "<h2>Invalid runs (%d)</h2>\n<ul>\n", len(rep.Invalid))
		for _, r := range rep.Invalid {
			fmt.Fprintf(&b, "<li><code>%s</code>: %s</li>\n", e(r.Dir), e(r.Reason))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func funnelSVG(b *strings.Builder, f Funnel) {
	stages := []struct {
		key, label string
		n          int
	}{{"runs", "runs", f.Runs}, {"migrated", "migrated", f.Migrated}, {"all_tests_pass", "all tests pass", f.AllTestsPass},
		{"blindness", "blindness", f.Blindness}, {"reached_stage3", "reached stage 3", f.ReachedStage3}, {"accepted", "accepted", f.Accepted}}
	const left, width, row = 130, 560, 26
	h := row*len(stages) + 10
	fmt.Fprintf(b, "<svg id=\"funnel\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"funnel\">\n", left+width+80, h)
	for i, s := range stages {
		wd := 0.0
		if f.Runs > 0 {
			wd = float64(width) * float64(s.n) / float64(f.Runs)
		}
		y := 5 + i*row
		colour := "#4a78b5"
		if s.key == "blindness" {
			colour = "#b55a4a"
		} else if s.key == "accepted" {
			colour = "#2e7d32"
		}
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", left-6, y+15, s.label)
		fmt.Fprintf(b, "<rect class=\"bar\" data-key=\"%s\" data-value=\"%d\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %d</title></rect>",
			s.key, s.n, left, y, wd, row-6, colour, s.label, s.n)
		fmt.Fprintf(b, "<text class=\"value\" x=\"%.1f\" y=\"%d\">%d</text>\n", float64(left)+wd+4, y+15, s.n)
	}
	b.WriteString("</svg>\n")
}

func classSVG(b *strings.Builder, rep *Report) {
	classes := rep.classOrder
	const top, height, col, left = 20, 200, 90, 40
	max := 0.0
	for _, c := range classes {
		if m := rep.ByClass[c].MeanScore; m != nil && *m > max {
			max = *m
		}
	}
	if max == 0 {
		max = 1
	}
	max = math.Ceil(max/10) * 10
	fmt.Fprintf(b, "<svg id=\"classes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"mean score by debt class\">\n", left+col*len(classes)+20, top+height+40)
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, top+height, left+col*len(classes), top+height)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", left-4, top+4, max, left-4, top+height)
	for i, c := range classes {
		fn := rep.ByClass[c]
		m := 0.0
		if fn.MeanScore != nil {
			m = *fn.MeanScore
		}
		h := float64(height) * m / max
		x := left + i*col + 15
		label := strconv.FormatFloat(m, 'f', 1, 64)
		fmt.Fprintf(b, "<rect class=\"bar\" data-class=\"%s\" data-value=\"%s\" data-runs=\"%d\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#4a78b5\"><title>%s: mean %s over %d run(s)</title></rect>",
			html.EscapeString(c), label, fn.Runs, x, float64(top+height)-h, col-30, h, html.EscapeString(c), label, fn.Runs)
		fmt.Fprintf(b, "<text class=\"value\" x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x+(col-30)/2, float64(top+height)-h-4, label)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x+(col-30)/2, top+height+16, html.EscapeString(c))
	}
	b.WriteString("</svg>\n")
}

func distributionSVG(b *strings.Builder, rep *Report) {
	cfgs := make([]string, 0, len(rep.ByConfig))
	for c := range rep.ByConfig {
		cfgs = append(cfgs, c)
	}
	sort.Slice(cfgs, func(i, j int) bool {
		a, c := rep.ByConfig[cfgs[i]].Score, rep.ByConfig[cfgs[j]].Score
		if *a != *c {
			return *a > *c
		}
		return cfgs[i] < cfgs[j]
	})
	counts := map[string][]int{}
	most := 1
	for _, r := range rep.Runs {
		if !r.Valid() {
			continue
		}
		if counts[r.Config] == nil {
			counts[r.Config] = make([]int, len(ReachableScores))
		}
		for k, s := range ReachableScores {
			if r.Score == s {
				counts[r.Config][k]++
			}
		}
	}
	for _, c := range cfgs {
		if n := rep.ByConfig[c].Runs; n > most {
			most = n
		}
	}
	const left, width, row, top = 170, 520, 18, 24
	fmt.Fprintf(b, "<svg id=\"distribution\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"score distribution by configuration\">\n", left+width+60, top+row*len(cfgs)+10)
	for k, s := range ReachableScores {
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"4\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"13\">%g</text>", left+k*50, scoreColours[k], left+k*50+13, s)
	}
	b.WriteString("\n")
	for i, c := range cfgs {
		y := top + i*row
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", left-6, y+12, html.EscapeString(c))
		x := float64(left)
		for k, s := range ReachableScores {
			n := counts[c][k]
			if n == 0 {
				continue
			}
			wd := float64(width) * float64(n) / float64(most)
			fmt.Fprintf(b, "<rect class=\"seg\" data-config=\"%s\" data-score=\"%g\" data-count=\"%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %d run(s) at %g</title></rect>",
				html.EscapeString(c), s, n, x, y, wd, row-4, scoreColours[k], html.EscapeString(c), n, s)
			x += wd
		}
		fmt.Fprintf(b, "<text class=\"value\" x=\"%.1f\" y=\"%d\">%s</text>\n", x+4, y+12, fmtMean(rep.ByConfig[c].Score, 2))
	}
	b.WriteString("</svg>\n")
}

// heatColour maps a mean score 0–100 onto white → dark green.
func heatColour(m float64) string {
	t := math.Max(0, math.Min(1, m/100))
	r := int(255 - t*(255-27))
	g := int(255 - t*(255-94))
	bl := int(255 - t*(255-32))
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

func heatmapSVG(b *strings.Builder, rep *Report) {
	m := rep.Matrix
	const left, top, cw, ch = 170, 240, 30, 18
	fmt.Fprintf(b, "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"configuration by task\">\n", left+cw*len(m.Tasks)+140, top+ch*len(m.Configs)+10)
	b.WriteString("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,6 L6,0\" stroke=\"#b55a4a\"/></pattern></defs>\n")
	for j, t := range m.Tasks {
		x := left + j*cw + cw/2
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-60 %d %d)\">%s</text>", x, top-6, x, top-6, html.EscapeString(t))
	}
	b.WriteString("\n")
	for i, c := range m.Configs {
		y := top + i*ch
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", left-6, y+13, html.EscapeString(c))
		for j, t := range m.Tasks {
			cell := m.Cells[i][j]
			fill, mean, stroke := "#b0b0b0", "", `stroke="#d0d0d0"`
			switch {
			case cell.Runs > 0:
				fill, mean = heatColour(*cell.MeanScore), strconv.FormatFloat(*cell.MeanScore, 'f', -1, 64)
				if cell.Invalid > 0 {
					// A mixed cell: its colour is the valid runs', and the
					// outline keeps its invalid runs in sight.
					stroke = `stroke="#b55a4a" stroke-width="2"`
				}
			case cell.Invalid > 0:
				fill = "url(#hatch)"
			}
			fmt.Fprintf(b, "<rect class=\"cell\" data-config=\"%s\" data-task=\"%s\" data-runs=\"%d\" data-invalid=\"%d\" data-mean=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" %s><title>%s × %s: %d run(s), mean %s, %d invalid</title></rect>",
				html.EscapeString(c), html.EscapeString(t), cell.Runs, cell.Invalid, mean, left+j*cw, y, cw, ch, fill, stroke,
				html.EscapeString(c), html.EscapeString(t), cell.Runs, fmtMean(cell.MeanScore, 1), cell.Invalid)
		}
		b.WriteString("\n")
	}
	b.WriteString("</svg>\n")
}

// WriteHTMLFile writes rep's page ([WriteHTML]) to a new file at path
// (truncating one that exists). The error is the file's that cannot be
// created, or the writing's, prefixed with path.
func WriteHTMLFile(path string, rep *Report, title string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	err = WriteHTML(fh, rep, title)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

package campaign_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
)

// chromium finds a headless Chromium: $SRB_CHROMIUM, else chromium,
// chromium-browser or google-chrome on PATH. Without one the test skips,
// unless SRB_REQUIRE_CHROMIUM=1 (CI installs it).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SRB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SRB_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("no chromium on PATH and SRB_REQUIRE_CHROMIUM=1 (apt-get install -y chromium)")
	}
	t.Skip("no headless Chromium (chromium, chromium-browser or google-chrome) on PATH; apt-get install -y chromium")
	return ""
}

// runChromium runs headless Chromium on page with args, in a profile of
// its own, and returns its stdout.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	profile := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + profile, "--window-size=1280,2400"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.String())
	}
	return out.Bytes()
}

// TestHTMLRendersInChromium renders the synthetic campaign's page in
// headless Chromium, keeps a screenshot in the test's artifact folder (go
// test -artifacts keeps it), and checks the figures: the page is
// self-contained, the rendered DOM holds the four SVG figures with the
// paper's numbers on their bars and one heatmap cell per configuration ×
// task, and the screenshot shows the plots' colours.
func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromium(t)
	rep := syntheticReport(t)
	out := t.ArtifactDir()
	page := filepath.Join(out, "campaign.html")
	var buf bytes.Buffer
	if err := campaign.WriteHTML(&buf, rep, "Synthetic paper campaign"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := buf.String()
	// Self-contained: no script, nothing fetched.
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url(http"} {
		if strings.Contains(src, bad) {
			t.Errorf("the page holds %q: it must be self-contained", bad)
		}
	}

	dom := string(runChromium(t, bin, page, "--dump-dom"))
	for _, id := range []string{"funnel", "classes", "distribution", "heatmap"} {
		if !strings.Contains(dom, `<svg id="`+id+`"`) {
			t.Errorf("the rendered page has no <svg id=%q>", id)
		}
	}
	for key, want := range map[string]int{"runs": 520, "migrated": 340, "all_tests_pass": 118, "blindness": 30, "reached_stage3": 88, "accepted": 28} {
		if !strings.Contains(dom, fmt.Sprintf(`data-key="%s" data-value="%d"`, key, want)) {
			t.Errorf("the funnel has no %s bar of %d", key, want)
		}
	}
	for class, want := range map[string]string{"build": "31.4", "framework": "17.2", "platform": "12.0", "language": "5.6"} {
		if !strings.Contains(dom, fmt.Sprintf(`data-class="%s" data-value="%s"`, class, want)) {
			t.Errorf("the class bars have no %s bar at %s", class, want)
		}
	}
	if !strings.Contains(dom, "<td>13.44</td>") {
		t.Error("the funnel table does not show the mean 13.44")
	}
	if n := strings.Count(dom, `class="cell"`); n != 26*20 {
		t.Errorf("the heatmap has %d cells, want 26 × 20", n)
	}
	configs := map[string]bool{}
	segRuns := 0
	for _, m := range regexp.MustCompile(`class="seg" data-config="([^"]+)" data-score="[0-9]+" data-count="([0-9]+)"`).FindAllStringSubmatch(dom, -1) {
		configs[m[1]] = true
		var n int
		fmt.Sscan(m[2], &n)
		segRuns += n
	}
	if len(configs) != 26 || segRuns != 520 {
		t.Errorf("the score distribution covers %d configurations and %d runs, want 26 and 520", len(configs), segRuns)
	}

	shot := filepath.Join(out, "campaign.png")
	runChromium(t, bin, page, "--screenshot="+shot, "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2400 {
		t.Errorf("screenshot is %v, want 1280×2400", b)
	}
	// The plots' colours are on screen: the funnel's and class bars' blue,
	// the accepted green, blindness red, and the not-run grey.
	for name, c := range map[string]color.RGBA{"bar blue": {0x4a, 0x78, 0xb5, 255}, "accepted green": {0x2e, 0x7d, 0x32, 255},
		"blindness red": {0xb5, 0x5a, 0x4a, 255}, "not-run grey": {0xb0, 0xb0, 0xb0, 255}} {
		if n := countColour(img, c); n < 50 {
			t.Errorf("the screenshot shows %d pixel(s) of %s", n, name)
		}
	}
	t.Logf("screenshot: %s", shot)
}

func countColour(img image.Image, want color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, want.R) && near(g, want.G) && near(bl, want.B) {
				n++
			}
		}
	}
	return n
}

func near(v uint32, w uint8) bool {
	d := int(v>>8) - int(w)
	return d >= -3 && d <= 3
}

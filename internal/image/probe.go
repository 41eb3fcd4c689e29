package image

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/moby/buildkit/client/llb"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// Check is one capability assertion on a built image.
type Check struct {
	// Field is the task field it comes from: "images.behavioural.must_lack[1]",
	// or "images.agent (grader path)" for the paths no agent image holds.
	Field string
	// Capability is a command ("gcc"), "pkg:NAME" or "path:/abs".
	Capability string
	// Present says whether the image must have it (true) or lack it.
	Present bool
	// Origin says where the assertion comes from: "declared" (the task
	// file writes the list), "default: <rule>" (schema/task.cue's default
	// for the list, task.Task.CapabilityOrigin), or "always: <why>" for
	// what every agent image is held to.
	Origin string
}

// CapabilityError is a capability assertion that failed on a built image.
type CapabilityError struct {
	Stage string
	Check Check
	// Found says what the probe saw: where a command or path is, or that
	// it is missing.
	Found string
}

// Error implements error.
func (e *CapabilityError) Error() string {
	want := "lack"
	if e.Check.Present {
		want = "have"
	}
	from := e.Check.Field
	if o, ok := strings.CutPrefix(e.Check.Origin, "default: "); ok {
		from += ", by default: " + o
	}
	if _, ok := strings.CutPrefix(e.Check.Origin, "derived: "); ok {
		from += " runs it there"
	}
	return fmt.Sprintf("capability %s: the %s image must %s it (%s), but %s", e.Check.Capability, e.Stage, want, from, e.Found)
}

// capKind splits a capability into its kind (cmd, pkg, path) and name.
func capKind(c string) (string, string) {
	if n, ok := strings.CutPrefix(c, "pkg:"); ok {
		return "pkg", n
	}
	if n, ok := strings.CutPrefix(c, "path:"); ok {
		return "path", n
	}
	return "cmd", c
}

// Checks lists the capability assertions of stage: its must_have,
// must_lack and observe lists (an observed command must be present, as a
// recording wrapper), each as the schema's defaults or the task made it,
// and for the agent image, always, the grader paths (absent) and git
// (present: State A is a git repository there).
func Checks(t *task.Task, stage string) []Check {
	decl := t.Images.Stage(stage)
	field := "images." + stage
	var cs []Check
	lists := map[string][]string{"must_have": decl.MustHave, "must_lack": decl.MustLack, "observe": decl.Observe}
	for _, l := range task.CapabilityLists {
		origin := t.CapabilityOrigin(stage, l)
		for i, c := range lists[l] {
			cs = append(cs, Check{Field: fmt.Sprintf("%s.%s[%d]", field, l, i), Capability: c, Present: l != "must_lack", Origin: origin})
		}
	}
	// What the task's build commands run in this image (task.CommandNeeds,
	// the list srb validate checks the declaration against): present, or
	// the build or freeze would fail on it later.
	for _, n := range t.CommandNeeds() {
		if n.Stage != stage || slices.Contains(decl.MustHave, n.Program) || slices.Contains(decl.Observe, n.Program) {
			continue
		}
		cs = append(cs, Check{Field: n.Field, Capability: n.Program, Present: true, Origin: "derived: " + n.Field + " runs " + n.Program + " in this image"})
	}
	if stage == "agent" {
		for _, p := range GraderPaths {
			cs = append(cs, Check{Field: field + " (grader path)", Capability: "path:" + p, Origin: "always: the agent image holds nothing of the grader"})
		}
		cs = append(cs, Check{Field: field + " (grader path)", Capability: "srb-helper", Origin: "always: the agent image holds nothing of the grader"})
		// State A is a git repository there: git must be there to use it.
		for _, c := range task.AgentAlwaysHas {
			cs = append(cs, Check{Field: field + " (state A is a git repository)", Capability: c, Present: true, Origin: "always: State A is a git repository there"})
		}
	}
	return cs
}

// ProbeDir is where the probe run writes its findings (a mount that is
// never part of the image).
const ProbeDir = "/srb-probe"

// probeScript is a POSIX sh script that writes one line per check to
// ProbeDir/probes.tsv ("<index>\t<present|absent>\t<where>") and the
// installed Debian packages to ProbeDir/packages.txt. A command counts as
// present when it is on PATH or when an executable of that name exists
// anywhere on the image's file system (a compiler moved off PATH is
// still a compiler).
func probeScript(checks []Check) string {
	var b strings.Builder
	b.WriteString("set -u; out=" + ProbeDir + "/probes.tsv; : >$out\n")
	b.WriteString("find_exe() { find / -xdev \\( -path /proc -o -path /sys -o -path " + ProbeDir + " \\) -prune -o -name \"$1\" -type f -perm /111 -print 2>/dev/null | head -n 1; }\n")
	for i, c := range checks {
		kind, name := capKind(c.Capability)
		q := shellQuote(name)
		switch kind {
		case "cmd":
			fmt.Fprintf(&b, "w=$(command -v %s 2>/dev/null || true); [ -n \"$w\" ] || w=$(find_exe %s); if [ -n \"$w\" ]; then printf '%d\\tpresent\\t%%s\\n' \"$w\" >>$out; else printf '%d\\tabsent\\t\\n' >>$out; fi\n", q, q, i, i)
		case "pkg":
			fmt.Fprintf(&b, "if dpkg-query -W -f='${db:Status-Status}' %s 2>/dev/null | grep -qx installed; then printf '%d\\tpresent\\tDebian package %%s is installed\\n' %s >>$out; else printf '%d\\tabsent\\t\\n' >>$out; fi\n", q, i, q, i)
		case "path":
			fmt.Fprintf(&b, "if [ -e %s ] || [ -L %s ]; then printf '%d\\tpresent\\t%%s\\n' %s >>$out; else printf '%d\\tabsent\\t\\n' >>$out; fi\n", q, q, i, q, i)
		}
	}
	b.WriteString("dpkg-query -W -f='${Package}=${Version}\\n' 2>/dev/null | LC_ALL=C sort >" + ProbeDir + "/packages.txt\n")
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// probeState runs the probe script on the image st, as root, and returns
// the probe's output folder.
func probeState(field string, st llb.State, checks []Check, env []string) llb.State {
	opts := []llb.RunOption{
		llb.Args([]string{"/bin/sh", "-c", probeScript(checks)}),
		llb.User("root"),
		llb.WithCustomName(fmt.Sprintf("%s: capability probes (%d)", field, len(checks))),
	}
	run := st.Run(opts...)
	return run.AddMount(ProbeDir, llb.Scratch())
}

// Probed is what the probes found on one image.
type Probed struct {
	// Failures are the checks that did not hold.
	Failures []*CapabilityError
	// Packages is the sorted name=version list of installed Debian
	// packages; PackagesDigest its sha256, recorded in the lockfile.
	Packages       string
	PackagesDigest string
}

// Evaluate reads the probe outputs of stage against checks.
func Evaluate(stage string, checks []Check, probes, packages []byte) (*Probed, error) {
	p := &Probed{Packages: string(packages)}
	sum := sha256.Sum256(packages)
	p.PackagesDigest = "sha256:" + hex.EncodeToString(sum[:])
	seen := make([]bool, len(checks))
	for _, line := range strings.Split(strings.TrimRight(string(probes), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		var i int
		if len(f) != 3 || func() bool { _, err := fmt.Sscanf(f[0], "%d", &i); return err != nil }() || i < 0 || i >= len(checks) {
			return nil, fmt.Errorf("probe %s: unreadable line %q", stage, line)
		}
		seen[i] = true
		c := checks[i]
		present := f[1] == "present"
		switch {
		case c.Present && !present:
			p.Failures = append(p.Failures, &CapabilityError{Stage: stage, Check: c, Found: "it is missing"})
		case !c.Present && present:
			p.Failures = append(p.Failures, &CapabilityError{Stage: stage, Check: c, Found: "it is present: " + f[2]})
		}
	}
	for i, s := range seen {
		if !s {
			return nil, fmt.Errorf("probe %s: no result for %s (%s)", stage, checks[i].Capability, checks[i].Field)
		}
	}
	return p, nil
}

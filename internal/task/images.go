package task

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Image rules (docs/SCHEMA.md "Rules"); the schema already requires all
// four stage images to be declared.
const (
	// RuleImageDistinct: the audit, behavioural and verification images
	// differ in what they install (their capabilities differ).
	RuleImageDistinct = "image-distinct"
	// RuleImageLackInstalled: a capability a stage must lack is not
	// installed into it, nor both observed and lacked.
	RuleImageLackInstalled = "image-lack-installed"
	// RuleImageExactVersion: every toolchain version is exact.
	RuleImageExactVersion = "image-exact-version"
	// RuleImageMustHave: a well-known toolchain command a stage must have
	// is installed by its declaration (or the base image's packages).
	RuleImageMustHave = "image-must-have"
)

// toolchainCommands are the commands a Debian base image never has
// unless a declaration installs them: a stage that must have one and
// installs nothing providing it fails its capability probe at build.
var toolchainCommands = map[string]bool{
	"go": true, "gofmt": true, "gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true,
	"make": true, "cmake": true, "ninja": true, "meson": true, "cargo": true, "rustc": true, "node": true, "npm": true,
	"npx": true, "javac": true, "java": true, "mvn": true, "gradle": true, "autoconf": true, "automake": true, "libtool": true,
}

// commandPackage names the Debian package to suggest for a command not
// named after its package.
var commandPackage = map[string]string{"node": "nodejs", "cc": "gcc", "c++": "g++", "ninja": "ninja-build", "java": "openjdk-17-jdk", "javac": "openjdk-17-jdk", "mvn": "maven", "npx": "npm", "gofmt": "golang-go", "clang++": "clang", "libtool": "libtool-bin", "libtoolize": "libtool"}

// packageProvides reports whether the Debian package name provides
// command c: packageCommands says so, the package is named after it, or
// it is a versioned or meta package of a toolchain (gcc-12, golang-1.22-go,
// nodejs, build-essential, openjdk-21-jdk).
func packageProvides(name, c string) bool {
	if cs, ok := packageCommands[name]; ok {
		// A package srb knows provides what it lists, whatever its name
		// says (libtool ships libtoolize, not libtool).
		if slices.Contains(cs, c) {
			return true
		}
	} else if name == c {
		return true
	}
	switch {
	case name == "build-essential":
		return slices.Contains([]string{"gcc", "g++", "cc", "c++", "make"}, c)
	case strings.HasPrefix(name, "golang"):
		return c == "go" || c == "gofmt"
	case strings.HasPrefix(name, "nodejs"):
		return c == "node"
	case strings.HasPrefix(name, "openjdk-") || strings.HasPrefix(name, "default-jdk"):
		return c == "java" || c == "javac"
	case strings.HasPrefix(name, "clang"):
		return c == "clang" || c == "clang++" || c == "cc" || c == "c++"
	case strings.HasPrefix(name, "rust"):
		return c == "rustc" || c == "cargo"
	}
	// Versioned packages: gcc-12 gives gcc-12, and with alternatives gcc.
	return strings.HasPrefix(name, c+"-") && len(name) > len(c)+1 && name[len(c)+1] >= '0' && name[len(c)+1] <= '9'
}

// stageProvides reports whether the declaration of stage image s (with
// the base's packages) installs something that provides command c: a Go
// toolchain (go, gofmt), an npm package (node, npm, npx, or the package's
// own name), or a Debian package [packageProvides] says gives it.
func stageProvides(im *Images, s *StageImage, c string) bool {
	if (c == "go" || c == "gofmt") && len(s.Go) > 0 {
		return true
	}
	if (c == "node" || c == "npm" || c == "npx") && len(s.NPM) > 0 {
		return true
	}
	for _, p := range append(slices.Clone(im.Base.Packages), s.Packages...) {
		name, _, _ := strings.Cut(p, "=")
		if packageProvides(name, c) {
			return true
		}
	}
	for _, n := range s.NPM {
		name := n[:max(strings.LastIndex(n, "@"), 0)]
		if name[strings.LastIndex(name, "/")+1:] == c {
			return true
		}
	}
	return false
}

// knownCommand reports whether srb knows which packages provide command
// c (a toolchain command, or one packageCommands lists), so that its
// absence from a declaration is certain; other commands (the base image's
// coreutils, a tool the task's packages happen to ship) are left to the
// probe on the built image.
func knownCommand(c string) bool {
	if toolchainCommands[c] {
		return true
	}
	for _, cs := range packageCommands {
		if slices.Contains(cs, c) {
			return true
		}
	}
	return false
}

// installHint says what to install for command c.
func installHint(c string) string {
	if c == "go" || c == "gofmt" {
		return "a Go toolchain (go: [\"1.22.5\"])"
	}
	pkg := c
	if n, ok := commandPackage[c]; ok {
		pkg = n
	}
	return fmt.Sprintf("a package that provides it (packages: [\"%s=VERSION\"])", pkg)
}

// imagesMustHave: a stage that must have a well-known toolchain command
// installs something that provides it, and so does a stage a build
// command runs a known program in ([Task.CommandNeeds]: state_b.build in
// the behavioural image, a configuration's original commands in the
// verification image), which must not lack it either. srb build refuses
// an image whose probe finds a must-have or a program its commands run
// absent (exit 2); this is the same refusal on the declaration alone,
// before anything is built. Other commands are left to the probe.
func (v *validator) imagesMustHave() {
	im := &v.t.Images
	for _, stage := range StageNames {
		s := im.Stage(stage)
		for i, c := range s.MustHave {
			if !toolchainCommands[c] || stageProvides(im, s, c) {
				continue
			}
			origin := v.t.CapabilityOrigin(stage, "must_have")
			v.problem(RuleImageMustHave, fmt.Sprintf("images.%s.must_have[%d]", stage, i),
				"the %s image must have %s (%s), but its declaration installs nothing that provides it: srb build would refuse the image when its probe finds %s absent; install %s, or drop %s from must_have",
				stage, c, origin, c, installHint(c), c)
		}
	}
	for _, c := range AgentAlwaysHas {
		if !knownCommand(c) || stageProvides(im, &im.Agent, c) {
			continue
		}
		v.problem(RuleImageMustHave, "images.agent",
			"the agent image must have %s (always: State A is a git repository there), but its declaration installs nothing that provides it: srb build would refuse the image when its probe finds %s absent; install %s in images.agent or the base",
			c, c, installHint(c))
	}
	for _, n := range v.t.CommandNeeds() {
		s := im.Stage(n.Stage)
		c := n.Program
		if slices.Contains(s.MustHave, c) && toolchainCommands[c] {
			continue // its must_have problem, above, says it
		}
		if slices.Contains(s.MustLack, c) && !slices.Contains(s.Observe, c) {
			v.problem(RuleImageMustHave, n.Field,
				"this command runs %s in the %s image, but that image must lack %s (images.%s.must_lack, %s): the command could not run there; keep %s behind a recording wrapper (images.%s.observe), or build without it",
				c, n.Stage, c, n.Stage, v.t.CapabilityOrigin(n.Stage, "must_lack"), c, n.Stage)
			continue
		}
		if !knownCommand(c) || stageProvides(im, s, c) || slices.Contains(s.Observe, c) {
			continue
		}
		v.problem(RuleImageMustHave, n.Field,
			"this command runs %s in the %s image, but the image's declaration installs nothing that provides it: srb build would refuse the image when its probe finds %s absent; install %s in images.%s",
			c, n.Stage, c, installHint(c), n.Stage)
	}
}

// packageCommands are the commands common Debian packages put on PATH,
// for the static half of the capability rules (the probes on the built
// image are the other half).
var packageCommands = map[string][]string{
	"gcc": {"gcc", "cc"}, "g++": {"g++", "c++"}, "clang": {"clang", "cc"}, "tcc": {"tcc", "cc"},
	"make": {"make"}, "cmake": {"cmake"}, "ninja-build": {"ninja"}, "meson": {"meson"},
	"autoconf": {"autoconf"}, "automake": {"automake"},
	// Debian's libtool ships libtoolize; the libtool script is libtool-bin's.
	"libtool": {"libtoolize"}, "libtool-bin": {"libtool"},
	"rustc": {"rustc"}, "cargo": {"cargo"}, "golang-go": {"go"}, "nodejs": {"node"}, "npm": {"npm", "npx"},
	"openjdk-17-jdk": {"javac", "java"}, "openjdk-17-jdk-headless": {"javac", "java"}, "maven": {"mvn"},
	"python3": {"python3"}, "gradle": {"gradle"}, "git": {"git"},
}

var (
	exactGo     = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
	exactSemver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	// exactToolchain is a release (1.22.5, 4.3) or a Debian version
	// (1.63.0+dfsg1-2, 1:2.39.5-0+deb12u3): no wildcard, no range, no
	// bare major version.
	exactToolchain = regexp.MustCompile(`^([0-9]+:)?[0-9]+(\.[0-9]+)+([-+~][0-9A-Za-z.+~-]*)?$`)
)

// imageInstalls is what a stage installs, as comparable text.
func imageInstalls(s *StageImage) string {
	parts := func(xs []string) string {
		c := append([]string(nil), xs...)
		sort.Strings(c)
		return strings.Join(c, ",")
	}
	return parts(s.Packages) + "|" + parts(s.Go) + "|" + parts(s.NPM)
}

// imagesDistinct: two of the audit, behavioural and verification images
// that install the same things have the same capabilities, so they cannot
// hold apart contracts that differ: one must have a capability the other
// must lack. Images whose declared capabilities agree may install the
// same things (Node.js on both sides of a module-system port, where the
// behavioural and verification images both carry node).
func (v *validator) imagesDistinct() {
	im := &v.t.Images
	stages := []string{"audit", "behavioural", "verification"}
	for i, a := range stages {
		for _, b := range stages[i+1:] {
			sa, sb := im.Stage(a), im.Stage(b)
			if imageInstalls(sa) != imageInstalls(sb) {
				continue
			}
			has, lacks, c := a, b, capabilityConflict(sa, sb)
			if c == "" {
				has, lacks, c = b, a, capabilityConflict(sb, sa)
			}
			if c == "" {
				continue
			}
			v.problem(RuleImageDistinct, "images."+b, "the %s image installs exactly what the %s image installs, but the %s image must have %s and the %s image must lack it: the same image cannot do both; give each image what its stage needs", b, a, has, c, lacks)
		}
	}
}

// capabilityConflict is the first capability a must have that b must
// lack, or "".
func capabilityConflict(a, b *StageImage) string {
	for _, c := range a.MustHave {
		if slices.Contains(b.MustLack, c) {
			return c
		}
	}
	return ""
}

// imagesLackInstalled: a stage must not install what it must lack.
func (v *validator) imagesLackInstalled() {
	for _, stage := range StageNames {
		s := v.t.Images.Stage(stage)
		field := "images." + stage
		provides := map[string]string{} // capability → what installs it
		for _, p := range s.Packages {
			name, _, _ := strings.Cut(p, "=")
			provides["pkg:"+name] = "package " + p
			for _, c := range packageCommands[name] {
				provides[c] = "package " + p
			}
			if _, ok := packageCommands[name]; !ok {
				provides[name] = "package " + p
			}
		}
		for _, g := range s.Go {
			provides["go"] = "go " + g
			provides["gofmt"] = "go " + g
		}
		for _, n := range s.NPM {
			name := n[:strings.LastIndex(n, "@")]
			provides[name[strings.LastIndex(name, "/")+1:]] = "npm package " + n
		}
		observed := map[string]bool{}
		for _, c := range s.Observe {
			observed[c] = true
		}
		for i, c := range s.MustLack {
			at := fmt.Sprintf("%s.must_lack[%d]", field, i)
			if by, ok := provides[c]; ok {
				v.problem(RuleImageLackInstalled, at, "the %s image must lack %s, but its declaration installs it (%s): remove one of the two", stage, c, by)
			}
			if observed[c] {
				v.problem(RuleImageLackInstalled, at, "%s is both observed and lacked in the %s image: an observed command stays, behind a recording wrapper; drop it from must_lack", c, stage)
			}
		}
	}
}

// imagesExactVersions: toolchains are pinned to exact versions, and the
// versions state_b.toolchains names are the ones the images install.
func (v *validator) imagesExactVersions() {
	v.toolchainVersions()
	for _, stage := range StageNames {
		s := v.t.Images.Stage(stage)
		field := "images." + stage
		for i, g := range s.Go {
			if !exactGo.MatchString(g) {
				v.problem(RuleImageExactVersion, fmt.Sprintf("%s.go[%d]", field, i), "go %q is a language version, not a toolchain: write the exact release, e.g. %q", g, g+".0")
			}
		}
		for i, n := range s.NPM {
			ver := n[strings.LastIndex(n, "@")+1:]
			if !exactSemver.MatchString(ver) {
				v.problem(RuleImageExactVersion, fmt.Sprintf("%s.npm[%d]", field, i), "npm package %q is not pinned to an exact version: write name@MAJOR.MINOR.PATCH", n)
			}
		}
		for i, p := range s.Packages {
			if _, ver, _ := strings.Cut(p, "="); strings.ContainsAny(ver, "*?") {
				v.problem(RuleImageExactVersion, fmt.Sprintf("%s.packages[%d]", field, i), "package %q has a wildcard version: write the exact Debian version", p)
			}
		}
	}
}

// toolchainVersions: every state_b.toolchains version is exact, and an
// image that installs a toolchain of that name (a Debian package, Go, or
// an npm package) installs that version: State B is built with the
// toolchain it names, in the behavioural image and wherever else.
func (v *validator) toolchainVersions() {
	tc := v.t.StateB.Toolchains
	names := make([]string, 0, len(tc))
	for n := range tc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := tc[name]
		if !exactToolchain.MatchString(want) || (name == "go" && !exactGo.MatchString(want)) {
			v.problem(RuleImageExactVersion, "state_b.toolchains."+name, "toolchain %s %q is not an exact version: write the release State B is built with, e.g. \"1.22.5\", or the Debian version its image installs, e.g. \"3.25.1-1\"", name, want)
			continue
		}
		for _, stage := range StageNames {
			s := v.t.Images.Stage(stage)
			field := "images." + stage
			for i, p := range s.Packages {
				if pn, pv, _ := strings.Cut(p, "="); pn == name && !toolchainIs(want, pv) && !strings.ContainsAny(pv, "*?") {
					v.problem(RuleImageExactVersion, fmt.Sprintf("%s.packages[%d]", field, i), "state_b.toolchains names %s %s, but the %s image installs %s: State B is built with the toolchain it names, so the two agree", name, want, stage, p)
				}
			}
			// An image version that is not exact has its own problem above.
			if name == "go" && len(s.Go) > 0 && !slices.Contains(s.Go, want) && !slices.ContainsFunc(s.Go, func(g string) bool { return !exactGo.MatchString(g) }) {
				v.problem(RuleImageExactVersion, field+".go", "state_b.toolchains names go %s, but the %s image installs go %s: State B is built with the toolchain it names, so the two agree", want, stage, strings.Join(s.Go, ", "))
			}
			for i, n := range s.NPM {
				at := strings.LastIndex(n, "@")
				if n[:at] == name && n[at+1:] != want && exactSemver.MatchString(n[at+1:]) {
					v.problem(RuleImageExactVersion, fmt.Sprintf("%s.npm[%d]", field, i), "state_b.toolchains names %s %s, but the %s image installs %s: State B is built with the toolchain it names, so the two agree", name, want, stage, n)
				}
			}
		}
	}
}

// toolchainIs reports whether the Debian version deb is the toolchain
// version want: the same version (epoch aside), its upstream part
// (3.25.1 for 3.25.1-1), or that part with Debian's repack suffix
// (1.63.0 for 1.63.0+dfsg1-2).
func toolchainIs(want, deb string) bool {
	strip := func(x string) string {
		if i := strings.Index(x, ":"); i >= 0 {
			return x[i+1:]
		}
		return x
	}
	want, deb = strip(want), strip(deb)
	if want == deb {
		return true
	}
	up := deb
	if i := strings.LastIndex(up, "-"); i >= 0 {
		up = up[:i]
	}
	return up == want || strings.HasPrefix(up, want+"+") || strings.HasPrefix(up, want+"~")
}

// GraderPaths are the paths the agent image never contains, whatever a
// task declares: the grader's suites (/tests), ground truth (/truth),
// srb's own folder (/opt/srb), the verifier's logs (/logs/verifier) and
// the grader's mount of State A (/opt/original). In the agent image State
// A is the first commit of the repository at artifacts.path
// (docs/OPERATIONS.md, the stage images).
var GraderPaths = []string{"/tests", "/truth", "/opt/srb", "/logs/verifier", "/opt/original"}

package image

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/moby/buildkit/client/llb"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// Where things live inside the stage images.
const (
	// GoRoot is where an image's first Go toolchain is installed; the
	// others go to /usr/local/go<version>.
	GoRoot = "/usr/local/go"
	// HelperPath is srb's in-image helper in the behavioural and
	// verification images.
	HelperPath = suite.HelperPath
	// NoticePath is the task's NOTICE entry in every image.
	NoticePath = "/usr/share/doc/srb-task/NOTICE"
	// ObserveDir holds the recording wrappers of observed commands; it is
	// first on PATH.
	ObserveDir = "/opt/srb/observe/bin"
	// ObserveLog is where a recording wrapper appends each invocation.
	ObserveLog = "/var/log/srb/observed.log"
	// OriginalMount and AuditRepoMount are the mount points of State A and
	// of the submission in the audit image (HARNESS.md §3.6).
	OriginalMount  = "/opt/original"
	AuditRepoMount = "/opt/workspace"
	// AgentUID is the uid and gid of the agent user in the agent image.
	AgentUID = 1000
)

// GraderPaths are paths the agent image never contains: the grader's
// suites, ground truth, srb's helper and result folders
// ([task.GraderPaths], which OriginalMount is one of).
var GraderPaths = task.GraderPaths

// Label keys every image carries.
const (
	LabelTask       = "org.swe-refactor-bench.task.id"
	LabelTaskCommit = "org.swe-refactor-bench.task.commit"
	LabelStateA     = "org.swe-refactor-bench.state-a.sha256"
	LabelStage      = "org.swe-refactor-bench.stage"
)

// Compiled is one stage image compiled to LLB: the image's graph, the
// graph of its capability probes (run on the image, never part of it)
// and the image config the exporter writes.
type Compiled struct {
	Stage  string
	Image  llb.State
	Probe  llb.State
	Checks []Check
	Config ocispecs.Image
}

// ConfigJSON is the image config as the exporter takes it.
func (c *Compiled) ConfigJSON() ([]byte, error) { return json.Marshal(c.Config) }

// Compile compiles the stage image stage ("agent", "audit",
// "behavioural", "verification") of t from its declaration and in. It
// is pure: the same task and inputs give the same graph.
func Compile(t *task.Task, stage string, in *Inputs) (*Compiled, error) {
	decl := t.Images.Stage(stage)
	if decl == nil {
		return nil, fmt.Errorf("compile: unknown stage %q (want one of %s)", stage, strings.Join(task.StageNames, ", "))
	}
	field := "images." + stage
	if len(decl.Observe) > 0 && (in.Helper == nil || (stage != "behavioural" && stage != "verification")) {
		return nil, fmt.Errorf("compile %s: %s.observe: a recording wrapper runs srb's helper, which only the behavioural and verification images carry", stage, field)
	}
	base := baseState(t, in)
	layers := []llb.State{base}
	// history says, per layer, which task field made it; the exporter
	// would otherwise take each layer's vertex name from whichever build
	// cached it first.
	history := []string{"images.base: " + in.Base.About}
	below := base
	if len(decl.Packages) > 0 {
		pf := sharedField(t, stage, func(d *task.StageImage) string { return sorted(d.Packages) }) + ".packages"
		pk := packagesRun(pf, decl.Packages, t.Images.SourceDateEpoch, below)
		layers = append(layers, llb.Diff(below, pk, llb.WithCustomName(pf+": the layer apt-get added")))
		history = append(history, field+".packages: apt-get install "+sorted(decl.Packages))
		below = pk
	}
	for i, v := range decl.Go {
		g, ok := in.Go[v]
		if !ok {
			return nil, fmt.Errorf("compile %s: no prepared input for go %s", stage, v)
		}
		gf := sharedField(t, stage, func(d *task.StageImage) string {
			for j, w := range d.Go {
				if w == v {
					return fmt.Sprint(j == 0)
				}
			}
			return ""
		}) + ".go"
		layers = append(layers, goLayer(gf, v, i == 0, g))
		history = append(history, fmt.Sprintf("%s.go[%d]: go %s at %s", field, i, v, goDir(v, i == 0)))
	}
	if len(decl.NPM) > 0 {
		nf := sharedField(t, stage, func(d *task.StageImage) string { return sorted(d.Packages) + "|" + sorted(d.NPM) }) + ".npm"
		if in.NPMConfig == nil {
			return nil, fmt.Errorf("compile %s: %s.npm: no prepared npm configuration (Prepare makes it when a stage declares npm packages)", stage, field)
		}
		n := npmRun(nf, decl.NPM, t.Images.SourceDateEpoch, below, *in.NPMConfig)
		layers = append(layers, llb.Diff(below, n, llb.WithCustomName(nf+": the layer npm added")))
		history = append(history, field+".npm: npm install --global "+sorted(decl.NPM))
	}
	sl, sh := stageLayers(t, stage, in)
	layers = append(layers, sl...)
	history = append(history, sh...)
	st := llb.Merge(layers, llb.WithCustomName(field+": the base and every layer above it"))
	st, rh := stageRuns(t, stage, st)
	history = append(history, rh...)
	env := imageEnv(t, decl)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		st = st.AddEnv(k, v)
	}
	checks := Checks(t, stage)
	probe := probeState(field, st, checks, env)
	if len(decl.NPM) > 0 {
		probe = npmTreeState(field, st, probe)
	}
	cfg := ocispecs.Image{
		Created:  ptrTime(time.Unix(t.Images.SourceDateEpoch, 0).UTC()),
		Platform: ocispecs.Platform{OS: "linux", Architecture: runtime.GOARCH},
		Config: ocispecs.ImageConfig{
			Env:        env,
			WorkingDir: workdir(t, stage),
			User:       user(t, stage),
			Labels: map[string]string{
				LabelTask:       t.ID,
				LabelTaskCommit: in.TaskCommit,
				LabelStateA:     strings.TrimPrefix(in.StateA.Digest, "sha256:"),
				LabelStage:      stage,
			},
			Cmd: []string{"/bin/sh"},
		},
	}
	if t.Images.Base.Kind != "registry" { // a registry base's layers are not known here
		for _, h := range history {
			cfg.History = append(cfg.History, ocispecs.History{Created: cfg.Created, CreatedBy: h, Comment: "srb"})
		}
	}
	return &Compiled{Stage: stage, Image: st, Probe: probe, Checks: checks, Config: cfg}, nil
}

func ptrTime(t time.Time) *time.Time { return &t }

// baseState is images.base: the debootstrap tree as a local source, or a
// registry image by digest.
func baseState(t *task.Task, in *Inputs) llb.State {
	b := t.Images.Base
	if b.Kind == "registry" {
		return llb.Image(b.Ref, llb.WithCustomName("images.base: "+b.Ref))
	}
	return llb.OCILayout(BaseRef+"@"+in.Base.Digest, llb.OCIStore("", BaseStore),
		llb.WithCustomName(fmt.Sprintf("images.base: %s (%s)", in.Base.About, in.Base.Digest)))
}

// aptClean removes what apt and dpkg leave that differs from run to run.
const aptClean = "rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log /var/log/alternatives.log " +
	"/var/cache/ldconfig/aux-cache /var/cache/debconf/*-old /var/lib/dpkg/*-old"

// packagesRun installs the declared Debian packages at their versions.
func packagesRun(field string, pkgs []string, epoch int64, below llb.State) llb.State {
	p := append([]string(nil), pkgs...)
	sort.Strings(p)
	script := "set -eu; export DEBIAN_FRONTEND=noninteractive; apt-get update -qq; " +
		"apt-get install -y -qq --no-install-recommends " + strings.Join(p, " ") + "; " + aptClean + clampTimes(epoch)
	return below.Run(llb.Args([]string{"/bin/sh", "-c", script}),
		llb.WithCustomName(field+": apt-get install "+strings.Join(p, " "))).Root()
}

// npmRun installs the declared npm packages globally with the image's
// npm. The host's npm configuration and CA bundle (cfg) are mounted
// read-only at NPMConfigMount for this step alone, and NPM_CONFIG_USERCONFIG
// and NODE_EXTRA_CA_CERTS point at them only here: the registry is
// reached as the host reaches it, and neither file is in the layer (the
// mount's stub is removed after the step, with its parent's times kept).
// The graph names only fixed paths, so it is the same on every machine;
// the configuration's content reaches the step's cache key alone.
func npmRun(field string, pkgs []string, epoch int64, below llb.State, cfg Input) llb.State {
	p := append([]string(nil), pkgs...)
	sort.Strings(p)
	script := "set -eu; npm install --global --no-fund --no-audit --no-update-notifier " + strings.Join(p, " ") +
		"; rm -rf /root/.npm /root/.config /tmp/*" + clampTimes(epoch, NPMConfigMount)
	conf := llb.Local(cfg.Name, localID(cfg), llb.SharedKeyHint(cfg.Name),
		llb.WithCustomName(field+": the host's npm configuration and CA bundle (mounted for the npm step only)"))
	run := below.Run(llb.Args([]string{"/bin/sh", "-c", script}),
		llb.AddEnv("NPM_CONFIG_USERCONFIG", NPMConfigMount+"/"+NPMConfigFile),
		llb.AddEnv("NODE_EXTRA_CA_CERTS", NPMConfigMount+"/"+NPMCAFile),
		llb.AddMount(NPMConfigMount, conf, llb.Readonly),
		llb.WithCustomName(field+": npm install --global "+strings.Join(p, " ")))
	return run.Root()
}

// goDir is where Go v goes in an image.
func goDir(v string, first bool) string {
	if first {
		return GoRoot
	}
	return GoRoot + v
}

// goLayer is Go v's one-layer OCI image with its tree at goDir(v,
// first), made on the host from the module's zip: every image with the
// same Go shares the layer, and its blob keeps its digest.
func goLayer(field, v string, first bool, g Input) llb.State {
	dest := goDir(v, first)
	return llb.OCILayout(ToolchainRef+"@"+g.Images[dest], llb.OCIStore("", ToolchainStore),
		llb.WithCustomName(fmt.Sprintf("%s: go %s at %s, %s (%s)", field, v, dest, g.About, g.Digest)))
}

// sharedField names a vertex that several stage images may share after
// every stage field that declares it: "images.agent", or
// "images.{agent,verification}" when key gives the same non-empty value
// for both. The name is then the same whichever image's build reaches
// the vertex first, so it (and the image history made from it) is
// deterministic.
func sharedField(t *task.Task, stage string, key func(*task.StageImage) string) string {
	k := key(t.Images.Stage(stage))
	var same []string
	for _, s := range task.StageNames {
		if key(t.Images.Stage(s)) == k {
			same = append(same, s)
		}
	}
	if len(same) <= 1 {
		return "images." + stage
	}
	return "images.{" + strings.Join(same, ",") + "}"
}

// helperFields names the helper's layer, which the behavioural and
// verification images share.
const helperFields = "images.{behavioural,verification}"

func sorted(xs []string) string {
	c := append([]string(nil), xs...)
	sort.Strings(c)
	return strings.Join(c, ",")
}

// localID makes a local source's identity depend on its input alone
// (llb.Local otherwise draws a random one), so the graph is the same on
// every compile and BuildKit reuses what it transferred before.
func localID(in Input) llb.LocalOption {
	return llb.LocalUniqueID("srb-" + in.Name)
}

func rootOwner() *llb.ChownOpt {
	return &llb.ChownOpt{User: &llb.UserOpt{UID: 0}, Group: &llb.UserOpt{UID: 0}}
}

// stageLayers are what is particular to one stage, each a layer of its
// own built on scratch (so its folders carry SOURCE_DATE_EPOCH, not the
// time of the build): mount points, State A or the task's assets, srb's
// helper, and the task's NOTICE entry.
func stageLayers(t *task.Task, stage string, in *Inputs) ([]llb.State, []string) {
	field := "images." + stage
	epoch := time.Unix(t.Images.SourceDateEpoch, 0).UTC()
	var ls []llb.State
	var hs []string
	switch stage {
	case "agent":
		repo := llb.Local(in.StateA.Name, localID(in.StateA), llb.IncludePatterns([]string{"repo"}), llb.SharedKeyHint(in.StateA.Digest),
			llb.WithCustomName(fmt.Sprintf("state_a: %s (%s)", in.StateA.About, in.StateA.Digest)))
		ls = append(ls, llb.Scratch().File(llb.Copy(repo, "/repo", t.Artifacts.Path, &llb.CopyInfo{
			CopyDirContentsOnly: true, CreateDestPath: true, CreatedTime: &epoch,
			ChownOpt: &llb.ChownOpt{User: &llb.UserOpt{UID: AgentUID}, Group: &llb.UserOpt{UID: AgentUID}},
		}), llb.WithCustomName(fmt.Sprintf("artifacts.path: state A at %s, commit %s", t.Artifacts.Path, in.StartCommit))))
		hs = append(hs, fmt.Sprintf("artifacts.path: state A at %s, commit %s", t.Artifacts.Path, in.StartCommit))
	case "audit":
	default:
		if in.Assets != nil {
			src := llb.Local(in.Assets.Name, localID(*in.Assets), llb.SharedKeyHint(in.Assets.Digest),
				llb.WithCustomName(fmt.Sprintf("%s: %s (%s)", field, in.Assets.About, in.Assets.Digest)))
			ls = append(ls, llb.Scratch().File(llb.Copy(src, "/", "/tests/"+stage+"/", &llb.CopyInfo{
				CopyDirContentsOnly: true, CreateDestPath: true, ChownOpt: rootOwner(), CreatedTime: &epoch,
			}), llb.WithCustomName(fmt.Sprintf("%s: the task's assets at /tests/%s", field, stage))))
			hs = append(hs, fmt.Sprintf("%s: the task's assets at /tests/%s", field, stage))
		}
		// srb's helper binary (HelperSource says where it comes from).
		if in.Helper != nil {
			src := llb.Local(in.Helper.Name, localID(*in.Helper), llb.SharedKeyHint(in.Helper.Digest),
				llb.WithCustomName(fmt.Sprintf("%s: %s (%s)", helperFields, in.Helper.About, in.Helper.Digest)))
			ls = append(ls, llb.Scratch().File(llb.Copy(src, "/srb-helper", HelperPath, &llb.CopyInfo{
				CreateDestPath: true, ChownOpt: rootOwner(), CreatedTime: &epoch,
			}), llb.WithCustomName(fmt.Sprintf("%s: srb's helper at %s", helperFields, HelperPath))))
			hs = append(hs, fmt.Sprintf("%s: srb's helper at %s", field, HelperPath))
		}
	}
	if f, ok := in.Files[stage]; ok {
		field := sharedField(t, stage, func(d *task.StageImage) string {
			for _, s := range task.StageNames {
				if t.Images.Stage(s) == d {
					return strings.Join(MountPoints(t, s), ",")
				}
			}
			return ""
		})
		what := "the task's NOTICE entry at " + NoticePath
		if mp := MountPoints(t, stage); len(mp) > 0 {
			what = "mount points " + strings.Join(mp, " and ") + "; " + what
		}
		src := llb.Local(f.Name, localID(f), llb.SharedKeyHint(f.Digest),
			llb.WithCustomName(fmt.Sprintf("%s: %s (%s)", field, f.About, f.Digest)))
		ls = append(ls, llb.Scratch().File(llb.Copy(src, "/", "/", &llb.CopyInfo{
			CopyDirContentsOnly: true, ChownOpt: rootOwner(), CreatedTime: &epoch,
		}), llb.WithCustomName(fmt.Sprintf("state_a.license, %s: %s", field, what))))
		hs = append(hs, fmt.Sprintf("state_a.license, images.%s: %s", stage, what))
	}
	return ls, hs
}

// stageRuns are the steps that must run inside the image: the agent's
// user, and recording wrappers for observed commands.
func stageRuns(t *task.Task, stage string, st llb.State) (llb.State, []string) {
	field := "images." + stage
	epoch := t.Images.SourceDateEpoch
	var hs []string
	if stage == "agent" {
		st = agentUser(t, st)
		hs = append(hs, fmt.Sprintf("agent.user: user %s (uid %d)", t.Agent.User, AgentUID))
	}
	if obs := t.Images.Stage(stage).Observe; len(obs) > 0 {
		st = st.Run(llb.Args([]string{"/bin/sh", "-c", observeScript(obs, t.Artifacts.Path) + clampTimes(epoch)}),
			llb.WithCustomName(fmt.Sprintf("%s.observe: recording wrappers for %s in %s", field, strings.Join(obs, ", "), ObserveDir))).Root()
		hs = append(hs, fmt.Sprintf("%s.observe: recording wrappers for %s in %s", field, strings.Join(obs, ", "), ObserveDir))
	}
	return st, hs
}

// clampTimes ends a RUN step: every file it wrote or changed (anything
// newer than SOURCE_DATE_EPOCH; the layers below are already at it or
// older) gets SOURCE_DATE_EPOCH as its time, so the step's layer depends
// on what it did, not on when.
//
// Mounts the step has besides the system's own (read-only ones, which
// touch could not change) are pruned too.
func clampTimes(epoch int64, mounts ...string) string {
	e := strconv.FormatInt(epoch, 10)
	var extra string
	for _, m := range mounts {
		extra += " -o -path " + m
	}
	return "; find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /etc/hosts -o -path /etc/resolv.conf -o -path /etc/hostname" + extra + " \\) -prune" +
		" -o -newermt @" + e + " -exec touch -h -d @" + e + " {} +"
}

// agentUser adds agent.user with uid and gid AgentUID and its home.
func agentUser(t *task.Task, st llb.State) llb.State {
	u := t.Agent.User
	uid := strconv.Itoa(AgentUID)
	script := fmt.Sprintf("set -eu; echo '%[1]s:x:%[2]s:%[2]s::/home/%[1]s:/bin/bash' >>/etc/passwd; "+
		"echo '%[1]s:x:%[2]s:' >>/etc/group; echo '%[1]s:*:10957:0:99999:7:::' >>/etc/shadow; "+
		"mkdir -p /home/%[1]s; chown %[2]s:%[2]s /home/%[1]s", u, uid)
	return st.Run(llb.Args([]string{"/bin/sh", "-c", script + clampTimes(t.Images.SourceDateEpoch)}),
		llb.WithCustomName(fmt.Sprintf("agent.user: user %s (uid %d)", u, AgentUID))).Root()
}

// observeScript writes, for each observed command, the recording wrapper
// kinds.WrapperScript makes (the same one stage 2's provenance module
// uses) in ObserveDir: it runs srb's helper (HelperPath), which appends one
// kinds.Invocation JSON line to ObserveLog, paths relative to root (the
// tree under test), and executes the real command. ObserveLog's folder is
// writable by every user (mode 1777), as /tmp is.
func observeScript(cmds []string, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "set -eu; mkdir -p %s %s; chmod 1777 %s; ", ObserveDir, dirOf(ObserveLog), dirOf(ObserveLog))
	for _, c := range cmds {
		if kind, _ := capKind(c); kind != "cmd" {
			continue
		}
		w := kinds.WrapperScript([]string{HelperPath}, ObserveLog, root, ObserveDir, c)
		fmt.Fprintf(&b, "echo %s | base64 -d >%s/%s; chmod 0755 %s/%s; ", base64.StdEncoding.EncodeToString([]byte(w)), ObserveDir, c, ObserveDir, c)
	}
	b.WriteString("true")
	return b.String()
}

func dirOf(p string) string { return p[:strings.LastIndex(p, "/")] }

// imageEnv is the image's environment: PATH with the observed wrappers
// and Go first, GOTOOLCHAIN=local, SOURCE_DATE_EPOCH.
func imageEnv(t *task.Task, decl *task.StageImage) []string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if len(decl.Go) > 0 {
		path = GoRoot + "/bin:" + path
	}
	if len(decl.Observe) > 0 {
		path = ObserveDir + ":" + path
	}
	env := []string{"PATH=" + path, "LANG=C.UTF-8", "SOURCE_DATE_EPOCH=" + strconv.FormatInt(t.Images.SourceDateEpoch, 10)}
	if len(decl.Go) > 0 {
		env = append(env, "GOTOOLCHAIN=local", "GOFLAGS=-trimpath")
	}
	return env
}

func workdir(t *task.Task, stage string) string {
	if stage == "audit" {
		return AuditRepoMount
	}
	return t.Artifacts.Path
}

func user(t *task.Task, stage string) string {
	if stage == "agent" {
		return t.Agent.User
	}
	return "root"
}

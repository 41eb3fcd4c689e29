package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// trialRig runs srb trial on a copy of the fixture task, with the
// scripts the ladder needs for a nop-like submission (the untouched
// fixture's audit, stage 3's reports), and TMPDIR a folder of its own so
// a test can see that a trial leaves nothing behind on the host.
type trialRig struct {
	t       *testing.T
	ctx     context.Context
	taskDir string
	ladder  []string // the ladder's script and driver flags
	tmp     string
}

func newTrialRig(t *testing.T) *trialRig {
	t.Helper()
	requireEngines(t)
	r := &trialRig{t: t, taskDir: fixtureCopy(t), tmp: t.TempDir()}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	fxRoot, err := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "lang90-tally-c-to-go"))
	if err != nil {
		t.Fatal(err)
	}
	nothing := filepath.Join(t.TempDir(), "nothing.json")
	if err := os.WriteFile(nothing, []byte(`[{"tool_calls": [{"name": "report", "arguments": {"found": false, "notes": "not run"}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	r.ladder = []string{"--driver", "scripted", "--adjudicator-script", nothing}
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
		r.ladder = append(r.ladder, "--adversary-script", id+"="+nothing)
	}
	for i := 1; i <= 3; i++ {
		r.ladder = append(r.ladder, "--audit-script", filepath.Join(fxRoot, "untouched", "audit", fmt.Sprintf("review-%d.json", i)))
	}
	t.Setenv("TMPDIR", r.tmp)
	return r
}

// agent writes a bash agent program and returns its --agent value.
func (r *trialRig) agent(name, body string) string {
	r.t.Helper()
	p := filepath.Join(r.t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		r.t.Fatal(err)
	}
	return "command:" + p
}

// run runs srb trial with args and returns the result, the trial folder
// and srb's output; anything but exit 0 and a valid-looking result fails.
func (r *trialRig) run(name string, args ...string) (*harbor.TrialResult, string, string) {
	r.t.Helper()
	out := filepath.Join(r.t.TempDir(), name)
	f := NewFactory()
	var stdout, stderr bytes.Buffer
	f.IO = IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
	all := append(append([]string{"trial", r.taskDir, "--out", out}, args...), r.ladder...)
	code := Run(r.ctx, f, all)
	log := stdout.String() + stderr.String()
	if code != ExitRan {
		r.t.Fatalf("%s: srb trial exit %d\n%s", name, code, log)
	}
	res, err := harbor.ReadTrialResult(out)
	if err != nil {
		r.t.Fatal(err)
	}
	if res.VerifierResult == nil || res.ExceptionInfo != nil || res.AgentResult == nil || res.AgentResult.Workspace == nil || res.AgentNetwork == nil {
		r.t.Fatalf("%s: an incomplete result: %+v\n%s", name, res, log)
	}
	// Nothing of the trial stays in the host's temporary folder.
	if left, _ := os.ReadDir(r.tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		r.t.Errorf("%s: the trial left %q in TMPDIR", name, names)
	}
	return res, out, log
}

// probeScript defines probe HOST PORT PATH: an HTTP GET over bash's
// /dev/tcp, printing "PROBE HOST:PORT OK: <last line>" or "PROBE
// HOST:PORT FAILED: <error>".
const probeScript = `probe() {
  if out=$(timeout 10 bash -c "exec 3<>/dev/tcp/$1/$2 && printf 'GET /$3 HTTP/1.0\r\nHost: $1\r\n\r\n' >&3 && cat <&3" 2>&1); then
    echo "PROBE $1:$2 OK: $(printf '%s' "$out" | tail -n 1)"
  else
    echo "PROBE $1:$2 FAILED: $(printf '%s' "$out" | tail -n 1)"
  fi
}
`

// probes reads the agent log's PROBE lines: "HOST:PORT" → "OK: …" or
// "FAILED: …".
func probes(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "agent", "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "PROBE "); ok {
			addr, verdict, _ := strings.Cut(rest, " ")
			got[addr] = verdict
		}
	}
	return got
}

// TestTrialGatewayInImage: with --gateway, the agent (a command agent as
// its user, in the fixture's agent image) reaches a fake model server
// listening on the host's loopback only, through srb's forwarder, at the
// URL SRB_GATEWAY_URL gives it, and gets the fake's answer; another port
// of the same host, 1.1.1.1, the Docker bridge's address, DNS and the
// Docker socket are all out of reach; result.json records the network
// and what was carried. The ladder then grades the workspace as usual.
func TestTrialGatewayInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an agent in its image and a ladder")
	}
	if os.Geteuid() != 0 {
		t.Skip("srb trial --gateway enters the container's network namespace: it needs root")
	}
	r := newTrialRig(t)
	var mu sync.Mutex
	var asked []string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		asked = append(asked, req.URL.Path)
		mu.Unlock()
		fmt.Fprintf(w, "fake model answer to %s\n", req.URL.Path)
	}))
	defer fake.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		t.Errorf("the other server on the host was reached: %s", req.URL)
	}))
	defer other.Close()
	fu, _ := url.Parse(fake.URL)
	ou, _ := url.Parse(other.URL)
	if fu.Hostname() != "127.0.0.1" {
		t.Fatalf("the fake listens on %s, not the loopback", fu.Host)
	}
	agent := r.agent("gateway-agent.sh", probeScript+`
echo "gateway url: $SRB_GATEWAY_URL"
hp=${SRB_GATEWAY_URL#http://}
probe "${hp%%:*}" "${hp##*:}" v1/messages
probe ::1 `+fu.Port()+` v1/ipv6
probe 127.0.0.1 `+ou.Port()+` other
probe 1.1.1.1 80 internet
probe 172.17.0.1 `+fu.Port()+` bridge
if getent hosts example.com; then echo "DNS OK"; else echo "DNS FAILED"; fi
if [ -e /var/run/docker.sock ]; then echo "SOCKET PRESENT"; else echo "SOCKET ABSENT"; fi
echo "interfaces: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
if grep -q '^00000000000000000000000000000001 .* lo$' /proc/net/if_inet6 2>/dev/null; then echo "IPV6 LOOPBACK"; fi
`)
	res, dir, log := r.run("gateway", "--agent", agent, "--gateway", fake.URL)
	got := probes(t, dir)
	gwAddr := "127.0.0.1:" + fu.Port()
	want := map[string]string{
		gwAddr:                    "OK: fake model answer to /v1/messages",
		"127.0.0.1:" + ou.Port():  "FAILED",
		"1.1.1.1:80":              "FAILED",
		"172.17.0.1:" + fu.Port(): "FAILED",
	}
	for addr, w := range want {
		if !strings.HasPrefix(got[addr], w) {
			t.Errorf("probe %s: %q, want %q\n%s", addr, got[addr], w, log)
		}
	}
	agentLog, _ := os.ReadFile(filepath.Join(dir, "agent", "agent.log"))
	// Where the container's loopback has ::1, srb listens there too: a
	// client that tries ::1 first for localhost reaches the gateway.
	v6 := strings.Contains(string(agentLog), "IPV6 LOOPBACK")
	wantAsked, wantListen6 := []string{"/v1/messages"}, ""
	if v6 {
		wantAsked, wantListen6 = append(wantAsked, "/v1/ipv6"), "[::1]:"+fu.Port()
		if g := got["::1:"+fu.Port()]; !strings.HasPrefix(g, "OK: fake model answer to /v1/ipv6") {
			t.Errorf("probe [::1]:%s: %q, want the fake's answer\n%s", fu.Port(), g, log)
		}
	} else {
		t.Logf("the container's loopback has no ::1: srb listens on 127.0.0.1 alone")
	}
	for _, line := range []string{"gateway url: " + fake.URL, "DNS FAILED", "SOCKET ABSENT", "interfaces: lo \n"} {
		if !strings.Contains(string(agentLog), line) {
			t.Errorf("the agent log lacks %q:\n%s", line, agentLog)
		}
	}
	mu.Lock()
	if !slices.Equal(asked, wantAsked) {
		t.Errorf("the fake was asked %q, want %q", asked, wantAsked)
	}
	mu.Unlock()
	n := res.AgentNetwork
	if n.Mode != "gateway" || n.Gateway != fake.URL || n.AgentURL != fake.URL || n.Target != gwAddr || n.Listen != gwAddr ||
		n.ListenIPv6 != wantListen6 || n.Connections != int64(len(wantAsked)) || n.DialFailures != 0 || n.BytesToGateway == 0 || n.BytesFromGateway == 0 {
		t.Errorf("agent_network: %+v", n)
	}
	if rw := res.VerifierResult.Rewards; rw["valid"] != 1 {
		t.Errorf("the ladder's verdict is not valid: %v\n%s", rw, log)
	}

	// A gateway named by a host name: the agent uses the URL as given,
	// the name mapped to 127.0.0.1 in its /etc/hosts. The name is this
	// machine's own, when it resolves to 127.0.0.1 here. The agent then
	// leaves a sparse terabyte, so no ladder runs.
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if addrs, err := net.LookupHost(host); err != nil || !slices.Contains(addrs, "127.0.0.1") {
		t.Logf("skipping the named gateway: %s resolves to %q (%v), not 127.0.0.1", host, addrs, err)
		return
	}
	named := "http://" + host + ":" + fu.Port() + "/v1"
	agent = r.agent("named-agent.sh", probeScript+`
echo "gateway url: $SRB_GATEWAY_URL"
probe `+host+` `+fu.Port()+` v1/named
truncate -s 1T sparse
`)
	res, dir, log = r.run("named", "--agent", agent, "--gateway", named)
	if got := probes(t, dir)[host+":"+fu.Port()]; got != "OK: fake model answer to /v1/named" {
		t.Errorf("the named gateway: %q\n%s", got, log)
	}
	n = res.AgentNetwork
	if n.Mode != "gateway" || n.AgentURL != named || n.HostsEntry != host+":127.0.0.1" || n.Target != host+":"+fu.Port() || n.Connections != 1 {
		t.Errorf("agent_network: %+v", n)
	}
	if res.AgentResult.Workspace.OverBoundName != "bytes" {
		t.Errorf("workspace: %+v", res.AgentResult.Workspace)
	}
}

// TestTrialHostileWorkspaceInImage runs agents that leave a hostile
// workspace (as the agent's user, with no network):
//   - within the bounds: a FIFO, links leading out, names with a line
//     break, a control character or a leading dash, and a hard link to a
//     file artifacts.exclude leaves out. The copy never opens the FIFO and
//     never follows a link; the links are collected as links, the FIFO
//     and the hard link are counted and named in result.json, and the
//     ladder grades the rest (a valid verdict). The agent, with no
//     --gateway, reaches nothing;
//   - past a bound: a sparse terabyte file, more entries than
//     --max-workspace-entries, hard links of one file past
//     --max-workspace-bytes, a tree deeper than 128 folders, the
//     workspace replaced by a link to "/" (the agent owns /workspace),
//     the workspace removed. Each stops
//     the copy at once, result.json names the bound, nothing is
//     collected, and the verdict is the agent's own valid 0 saying why.
//
// No trial leaves anything in the host's temporary folder.
func TestTrialHostileWorkspaceInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs agents in their image and a ladder")
	}
	r := newTrialRig(t)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		t.Errorf("the agent reached the host without --gateway: %s", req.URL)
	}))
	defer fake.Close()
	fu, _ := url.Parse(fake.URL)

	agent := r.agent("hostile.sh", probeScript+`
set -u
mkfifo pipe
ln -s /etc/passwd leak
ln -s ../../../../../../.. up
touch "$(printf 'line\nbreak')" "$(printf 'ctl\001x')" -- '-rf'
mkdir -p .git && head -c 4096 /dev/zero >.git/blob && ln .git/blob hard-to-excluded
echo kept >kept.txt
probe 127.0.0.1 `+fu.Port()+` nogateway
echo "agent done"
`)
	res, dir, log := r.run("within", "--agent", agent)
	wc := res.AgentResult.Workspace
	if wc.OverBound != "" || wc.Special != 1 || !slices.Equal(wc.SpecialPaths, []string{"pipe"}) || !slices.Equal(wc.Unlinked, []string{"hard-to-excluded"}) {
		t.Errorf("workspace: %+v\n%s", wc, log)
	}
	if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "1 special file(s)") {
		t.Errorf("notes %q do not name the special file", res.Notes)
	}
	repo := filepath.Join(dir, "artifacts", "repo")
	for name, target := range map[string]string{"leak": "/etc/passwd", "up": "../../../../../../.."} {
		if l, err := os.Readlink(filepath.Join(repo, name)); err != nil || l != target {
			t.Errorf("%s: %q, %v; want a link to %s, collected as a link", name, l, err, target)
		}
	}
	for _, name := range []string{"line\nbreak", "ctl\001x", "-rf", "kept.txt"} {
		if fi, err := os.Lstat(filepath.Join(repo, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%q was not collected: %v", name, err)
		}
	}
	for _, name := range []string{"pipe", "hard-to-excluded", ".git"} {
		if _, err := os.Lstat(filepath.Join(repo, name)); err == nil {
			t.Errorf("%s was collected", name)
		}
	}
	if p := probes(t, dir)["127.0.0.1:"+fu.Port()]; !strings.HasPrefix(p, "FAILED") {
		t.Errorf("without --gateway the agent's probe of the host's port: %q", p)
	}
	if res.AgentNetwork.Mode != "none" || res.AgentNetwork.Connections != 0 {
		t.Errorf("agent_network %+v, want none", res.AgentNetwork)
	}
	if rw := res.VerifierResult.Rewards; rw["valid"] != 1 || rw["stage1_ran"] != 1 {
		t.Errorf("the hostile names were not graded validly: %v\n%s", rw, log)
	}

	for _, c := range []struct {
		name, body, bound, at string
		flags                 []string
	}{
		{"sparse", "truncate -s 1T sparse\n", "bytes", "sparse", nil},
		{"entries", "mkdir many && cd many && seq 1 3000 | xargs touch\n", "entries", "", []string{"--max-workspace-entries", "2000"}},
		{"hardlinks", "head -c 1048576 /dev/zero >one && for i in $(seq 1 100); do ln one link$i; done\n", "bytes", "", []string{"--max-workspace-bytes", "67108864"}},
		{"deep", "for i in $(seq 1 200); do mkdir d && cd d; done; touch bottom\n", "depth", strings.Repeat("d/", 128) + "d", nil},
		{"link-to-root", "cd /workspace && mv repo old && ln -s / repo\n", "not a folder", `a symbolic link to "/"`, nil},
		{"gone", "cd / && rm -rf /workspace/repo\n", "gone", "no longer exists", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, dir, log := r.run(c.name, append([]string{"--agent", r.agent(c.name+".sh", c.body)}, c.flags...)...)
			wc := res.AgentResult.Workspace
			if wc.OverBoundName != c.bound || (c.at != "" && !strings.Contains(wc.OverBound, c.at)) {
				t.Errorf("over_bound %q (%s), want the %s bound at %q\n%s", wc.OverBound, wc.OverBoundName, c.bound, c.at, log)
			}
			if wc.Bytes > 64<<20 {
				t.Errorf("%d bytes were written before the bound", wc.Bytes)
			}
			rw := res.VerifierResult.Rewards
			if rw["valid"] != 1 || rw["reward"] != 0 || rw["stage1_ran"] != 0 {
				t.Errorf("rewards %v, want the agent's valid 0 with no stage run", rw)
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), "nothing was graded") {
				t.Errorf("notes %q do not say so", res.Notes)
			}
			v, err := os.ReadFile(filepath.Join(dir, "verifier", result.ScoreFile))
			if err != nil || !bytes.Contains(v, []byte("submission_refused")) {
				t.Errorf("score.json does not say why: %s, %v", v, err)
			}
			if es, _ := os.ReadDir(filepath.Join(dir, "artifacts")); len(es) != 0 {
				t.Errorf("artifacts/ holds %d entries: nothing is collected past a bound", len(es))
			}
		})
	}
}

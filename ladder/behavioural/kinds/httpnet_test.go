package kinds

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// EnvProbe names, for the test binary serving an http module
// (SRB_KINDS_SERVE), the addresses it dials before it serves
// ("tcp 127.0.0.1:N;unix @name"); EnvProbeOut the file it writes what
// each dial did to.
const (
	EnvProbe    = "SRB_KINDS_PROBE"
	EnvProbeOut = "SRB_KINDS_PROBE_OUT"
)

// probe dials every address of EnvProbe, writes a line to each that it
// reaches, and records "network address: reached" or the error in
// EnvProbeOut.
func probe() {
	var out strings.Builder
	for _, a := range strings.Split(os.Getenv(EnvProbe), ";") {
		network, addr, ok := strings.Cut(a, " ")
		if !ok {
			continue
		}
		c, err := net.DialTimeout(network, addr, 2*time.Second)
		if err == nil {
			_, err = c.Write([]byte("reached\n"))
			c.Close()
		}
		if err == nil {
			out.WriteString(network + " " + addr + ": reached\n")
		} else {
			out.WriteString(network + " " + addr + ": " + err.Error() + "\n")
		}
	}
	if p := os.Getenv(EnvProbeOut); p != "" {
		_ = os.WriteFile(p, []byte(out.String()), 0o644)
	}
}

// countingListener accepts on ln until it is closed and counts what it
// accepted.
func countingListener(t *testing.T, ln net.Listener) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return &n
}

// An http module's server with --host as root (the jail with a network
// namespace per process) runs in a network namespace of its own, as the
// submission's other processes do, with only its loopback: it reaches
// neither a service listening on the machine's 127.0.0.1 (a local
// registry, a model proxy) nor an abstract unix socket of the machine's,
// while the helper still dials into it and the module passes its checks
// against the truth State A recorded. Before, the server kept the
// machine's network so that the helper could reach it, and reached both
// (the probe read "reached" twice and the listeners counted each).
func TestHTTPServerHasItsOwnNetwork(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	helper := []string{os.Args[0]}
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), filepath.Join(root, "task"), behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err == nil {
		err = j.InstallHelper(helper)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !j.Net {
		t.Skipf("no network namespace here: %s", j.NetRefused)
	}

	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var token [6]byte
	rand.Read(token[:])
	abstract := "@srb-kinds-probe-" + hex.EncodeToString(token[:])
	unix, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	tcpN, unixN := countingListener(t, tcp), countingListener(t, unix)
	probes := "tcp " + tcp.Addr().String() + ";unix " + abstract

	taskDir, original, sub := filepath.Join(root, "task"), filepath.Join(root, "a"), filepath.Join(root, "b")
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	tree(t, original, map[string]string{"in": "x\n"})
	tree(t, sub, map[string]string{"in": "x\n"})
	build := [][]string{{"/bin/sh", "-c", "cat in > out"}}
	d := &behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {Original: build, Outputs: []string{"out"}}},
		StateB:         build,
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "web", Kind: "http", About: "w", Weight: 1, Timeout: time.Minute, Params: raw(map[string]any{
				"server": map[string]any{
					// The installed copy of the test binary: the
					// submission's user can execute it.
					"argv": []string{j.Helper[0]},
					"env": map[string]string{"SRB_KINDS_SERVE": "127.0.0.1:${PORT}",
						EnvProbe: probes, EnvProbeOut: "${WORK}/probe.txt"},
					"ready": map[string]any{"target": "/", "status": 200},
				},
				"normalise": []any{map[string]any{"builtin": "timestamps"}, map[string]any{"builtin": "ports"}},
				"exchanges": []any{
					map[string]any{"id": "root", "target": "/"},
					map[string]any{"id": "teapot", "method": "POST", "target": "/teapot", "body": "x"},
				},
				"compare": []string{"status", "body"},
			})},
		},
	}
	fz := &behavioural.Freezer{Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl: d, Helper: helper, Provenance: behavioural.Provenance{Where: "host"}}
	if _, err := fz.Freeze(context.Background()); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	// The freeze ran the server unjailed, on the machine's network.
	tcpN.Store(0)
	unixN.Store(0)

	dd := *d
	dd.Jail = j
	work := filepath.Join(root, "check")
	s, err := dd.Suite(behavioural.ModeCheck, work, filepath.Join(taskDir, behavioural.TruthDir), helper)
	if err != nil {
		t.Fatal(err)
	}
	var st *result.Stage
	finishesWithin(t, 2*time.Minute, func() {
		st, err = (&behavioural.Runner{Repo: sub, Original: original, Work: work, Jail: j}).Run(context.Background(), s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != "ok" || st.Metadata["harness_fault"] != nil {
		t.Errorf("status %s, metadata %v", st.Status, st.Metadata)
	}
	failing, passing := checksByVerdict(st)
	if len(failing) > 0 || passing == 0 {
		t.Errorf("the module against State A's truth: %d passing, failing:\n%s", passing, strings.Join(failing, "\n"))
	}
	got, err := os.ReadFile(filepath.Join(j.Root, "web", "server", "probe.txt"))
	if err != nil {
		t.Fatalf("the server's probe left no record: %v", err)
	}
	t.Logf("the server's probes:\n%s", got)
	if strings.Count(string(got), "\n") != 2 || strings.Contains(string(got), "reached") {
		t.Errorf("the jailed server's probes:\n%s", got)
	}
	if n, m := tcpN.Load(), unixN.Load(); n != 0 || m != 0 {
		t.Errorf("the jailed server reached the machine's listeners: %d TCP connection(s) on %s, %d on the abstract socket %s", n, tcp.Addr(), m, abstract)
	}
}

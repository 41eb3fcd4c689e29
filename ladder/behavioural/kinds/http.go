package kinds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

type httpKind struct{ HTTPParams }

// Response is a parsed HTTP response: Headers in wire order as
// "Name: value", Body de-chunked, WireLen every byte received.
type Response struct {
	Status  int
	Headers []string
	Body    []byte
	WireLen int
}

func (k *httpKind) observe(m *module) error {
	build, err := m.restoreOrFail(k.Configuration)
	if err != nil || build == "" {
		return err
	}
	// With --host as root (the jail gives each process a network
	// namespace of its own) the server gets one too, made here, which
	// the helper dials into: it reaches nothing of the machine's network
	// (a service on its loopback, an abstract socket), as in a stage
	// container. In the image, the container's network is the server's.
	var ns *os.File
	if j := m.jail(); j != nil && j.Net && j.Mount && len(m.plan.Helper) > 0 {
		if ns, err = newNetNS(); err != nil {
			err = fmt.Errorf("%w: %v", errJail, err)
			m.harnessFault(err)
			return err
		}
		defer ns.Close()
	}
	dial := dialIn(ns)
	port, err := freePortIn(ns)
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	work, err := m.scratch("server")
	if err != nil {
		return err
	}
	vals := map[string]string{"BUILD": build, "WORK": work, "DATA": m.data(), "PORT": strconv.Itoa(port)}
	logf, err := os.Create(filepath.Join(m.work, "server.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	argv := expandAll(k.Server.Argv, vals)
	env := m.submissionEnv(k.Server.Env, vals)
	cmd, status := m.commandNet(argv, build, env, false)
	if err := status.unprepared(); err != nil {
		m.harnessFault(err)
		return err
	}
	// The server's output goes to the module's log, capped: the rest is
	// read and dropped, so the server neither blocks nor fills the disk.
	capped := &cappedWriter{w: logf, left: ObservedBytesLimit}
	cmd.Stdout, cmd.Stderr = capped, capped
	// In the stage's cgroup (--host as root) with the submission's other
	// processes; a server the OOM killer ended is a server that stopped
	// answering.
	spec, err := proc.CmdSpec(cmd)
	var p *proc.Process
	if err == nil {
		spec.Cgroups = m.cgroup().Procs()
		spec.CgroupNS = m.cgroupNS()
		spec.NetNS = ns
		p, err = proc.Start(spec)
	}
	if err != nil {
		m.notObserved("the server could not start: " + err.Error())
		return nil
	}
	exited := p.Done()
	defer p.Terminate(5 * time.Second) // the server and all it started
	if why := k.waitReady(dial, addr, exited); why != "" {
		select {
		case <-exited:
			// A server that never came up because its sandbox could not
			// be entered is the grader's fault, not a failed check.
			p.Wait()
			if jerr := status.read(false); errors.Is(jerr, errJail) {
				m.harnessFault(jerr)
				return jerr
			}
		default:
		}
		m.notObserved(why)
		return nil
	}
	norm, err := compileNormalisers(k.Normalise)
	if err != nil {
		return err
	}
	paths := [][2]string{{build, "<BUILD>"}, {work, "<WORK>"}}
	aspects := k.Compare
	if len(aspects) == 0 {
		aspects = []string{"status", "headers", "body", "length"}
	}
	for _, x := range k.Exchanges {
		if !m.timeLeft() {
			return errDeadline
		}
		req := buildRequest(x, addr, vals)
		resp, err := exchange(dial, addr, req, 10*time.Second)
		if err != nil {
			for _, a := range aspects {
				m.emit(x.ID+"/"+a, "no response: "+err.Error(), nil)
			}
			continue
		}
		for _, a := range aspects {
			id := x.ID + "/" + a
			switch a {
			case "status":
				m.emit(id, resp.Status, nil)
			case "headers":
				hs := canonicalHeaders(resp.Headers, k.Headers)
				for i, h := range hs {
					hs[i] = norm.apply(h, paths)
				}
				m.emit(id, hs, nil)
			case "body":
				m.emit(id, norm.apply(text(resp.Body), paths), nil)
			case "length":
				m.emit(id, resp.WireLen, nil)
			}
		}
	}
	return nil
}

// canonicalHeaders is a response's header fields as HTTP defines their
// meaning (RFC 9110 §5.1, §5.3): names are case-insensitive, so each is
// lower-cased ("name: value", the value's surrounding space trimmed), and
// the order of fields with different names carries nothing, so they are
// sorted by name; fields of one name keep their wire order, which does.
// With only non-empty, just the fields named there (any case) are kept.
func canonicalHeaders(lines, only []string) []string {
	keep := map[string]bool{}
	for _, n := range only {
		keep[strings.ToLower(strings.TrimSpace(n))] = true
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		name, value, _ := strings.Cut(l, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		if len(keep) > 0 && !keep[name] {
			continue
		}
		out = append(out, name+": "+strings.TrimSpace(value))
	}
	sort.SliceStable(out, func(i, j int) bool {
		ni, _, _ := strings.Cut(out[i], ":")
		nj, _, _ := strings.Cut(out[j], ":")
		return ni < nj
	})
	return out
}

func (k *httpKind) waitReady(dial dialer, addr string, exited <-chan struct{}) string {
	r := k.Server.Ready
	timeout := time.Duration(r.TimeoutSec) * time.Second
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	method, target := r.Method, r.Target
	if method == "" {
		method = "GET"
	}
	if target == "" {
		target = "/"
	}
	req := []byte(fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, target, addr))
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return "the server exited before it became ready"
		default:
		}
		resp, err := exchange(dial, addr, req, time.Second)
		if err == nil && (r.Status == 0 || resp.Status == r.Status) {
			return ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("the server was not ready within %s (%s %s)", timeout, method, target)
}

func buildRequest(x Exchange, addr string, vals map[string]string) []byte {
	if x.Raw != "" {
		return []byte(expand(x.Raw, vals))
	}
	method := x.Method
	if method == "" {
		method = "GET"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", method, expand(x.Target, vals))
	has := map[string]bool{}
	for _, h := range x.Headers {
		has[strings.ToLower(h[0])] = true
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], expand(h[1], vals))
	}
	if !has["host"] {
		fmt.Fprintf(&b, "Host: %s\r\n", addr)
	}
	if !has["connection"] {
		b.WriteString("Connection: close\r\n")
	}
	if x.Body != "" && !has["content-length"] {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(x.Body))
	}
	b.WriteString("\r\n")
	b.WriteString(x.Body)
	return b.Bytes()
}

// Exchange1 sends req to addr on a fresh connection and reads the
// response until the server closes it (or timeout).
func Exchange1(addr string, req []byte, timeout time.Duration) (*Response, error) {
	return exchange(dialHost, addr, req, timeout)
}

// exchange is [Exchange1] over a connection dial makes (in the server's
// network namespace, [dialIn]).
func exchange(dial dialer, addr string, req []byte, timeout time.Duration) (*Response, error) {
	c, err := dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	// The server is the submission's: what it sends is kept up to
	// [ObservedBytesLimit], and more is a failed exchange.
	raw, err := io.ReadAll(io.LimitReader(c, ObservedBytesLimit+1))
	if len(raw) > ObservedBytesLimit {
		return nil, fmt.Errorf("the response was %w", errTooLarge)
	}
	if err != nil && len(raw) == 0 {
		return nil, err
	}
	return ParseResponse(raw, strings.HasPrefix(string(req), "HEAD "))
}

// ParseResponse parses one raw HTTP/1.x response.
func ParseResponse(raw []byte, head bool) (*Response, error) {
	r := &Response{WireLen: len(raw)}
	br := bufio.NewReader(bytes.NewReader(raw))
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("no status line")
	}
	parts := strings.SplitN(strings.TrimRight(line, "\r\n"), " ", 3)
	if len(parts) < 2 {
		return nil, fmt.Errorf("malformed status line %q", line)
	}
	if r.Status, err = strconv.Atoi(parts[1]); err != nil {
		return nil, fmt.Errorf("malformed status line %q", line)
	}
	chunked := false
	for {
		l, err := br.ReadString('\n')
		l = strings.TrimRight(l, "\r\n")
		if l == "" || err != nil {
			break
		}
		r.Headers = append(r.Headers, l)
		name, value, _ := strings.Cut(l, ":")
		if strings.EqualFold(name, "transfer-encoding") && strings.Contains(strings.ToLower(value), "chunked") {
			chunked = true
		}
	}
	rest, _ := io.ReadAll(br)
	if head || r.Status == 204 || r.Status == 304 || r.Status < 200 {
		return r, nil
	}
	if !chunked {
		r.Body = rest
		return r, nil
	}
	cr := bufio.NewReader(bytes.NewReader(rest))
	for {
		l, err := cr.ReadString('\n')
		if err != nil {
			break
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(l, ";", 2)[0]), 16, 64)
		if err != nil || n == 0 {
			break
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(cr, buf); err != nil {
			break
		}
		r.Body = append(r.Body, buf...)
		cr.ReadString('\n')
	}
	return r, nil
}

// Package gateway gives an agent's container, which has no network, one
// way out: TCP connections to a single model gateway, host:port, and
// nothing else.
//
// The container keeps Docker's network mode "none": its network namespace
// holds only a loopback interface, so no address outside it is routable
// (not the internet, not the host's other ports, not the Docker socket)
// and no name resolves but those in its /etc/hosts. srb opens a listening
// socket inside that namespace, on 127.0.0.1 at the gateway's port, and on
// [::1] at that port too when the namespace's loopback has IPv6 (see
// [Listen]: "localhost" may resolve to either), and forwards every
// connection the agent makes to them, byte for byte, to the gateway,
// dialled from srb's own namespace. The URL the agent is given
// (SRB_GATEWAY_URL) names 127.0.0.1, which every namespace has. A gateway named
// by a host name is mapped to 127.0.0.1 in the container's /etc/hosts, so
// the agent uses the gateway's own URL, TLS and Host header included.
//
// Opening a socket in another process's network namespace needs srb on
// the engine's machine, in the engine's process namespace, with
// CAP_SYS_ADMIN (root): a remote DOCKER_HOST or a rootless srb cannot, and
// srb trial --gateway then fails (a harness fault) rather than give the
// agent a network it did not ask for.
package gateway

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// EnvURL names the environment variable that tells the agent the
// gateway's URL as it reaches it from inside the container.
const EnvURL = "SRB_GATEWAY_URL"

// Gateway is the one endpoint an agent may reach.
type Gateway struct {
	// Raw is the URL as given.
	Raw string
	// Host is the URL's host (a name or an IPv4 address); Port its port
	// (the scheme's when the URL has none).
	Host string
	Port int
	// AgentURL is the URL the agent is given: Raw when Host is a name
	// (mapped to 127.0.0.1 in the container), else Raw with its host
	// replaced by 127.0.0.1.
	AgentURL string
}

// Target is host:port, dialled from srb's machine.
func (g *Gateway) Target() string { return net.JoinHostPort(g.Host, strconv.Itoa(g.Port)) }

// Listen is where the agent connects inside its container:
// 127.0.0.1:Port, the address SRB_GATEWAY_URL names.
func (g *Gateway) Listen() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(g.Port)) }

// ListenIPv6 is the IPv6 loopback address srb also listens on inside the
// container, when its namespace has one: [::1]:Port.
func (g *Gateway) ListenIPv6() string { return net.JoinHostPort("::1", strconv.Itoa(g.Port)) }

// HostsEntry is the container's /etc/hosts line for the gateway's name
// ("name:127.0.0.1", Docker's --add-host form), or "" when Host is an
// address or localhost (already 127.0.0.1 in every container).
func (g *Gateway) HostsEntry() string {
	if _, err := netip.ParseAddr(g.Host); err == nil || g.Host == "localhost" {
		return ""
	}
	return g.Host + ":127.0.0.1"
}

// Parse reads a gateway URL: http or https, a host (a name or an IPv4
// address; an IPv6 literal is refused: the container's end is IPv4), an
// optional port (else 80 or 443), any path. A URL carrying a user or
// password is refused: it would be written into the trial's result; the
// agent gets its credentials some other way.
func Parse(raw string) (*Gateway, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("gateway %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("gateway %q: the scheme must be http or https", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("gateway %q: a URL with a user or password would be recorded in the trial's result; leave it out", u.Redacted())
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("gateway %q: no host", raw)
	}
	if a, err := netip.ParseAddr(host); err == nil && !a.Is4() {
		return nil, fmt.Errorf("gateway %q: an IPv6 address; give a host name or an IPv4 address", raw)
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("gateway %q: port %q", raw, p)
		}
		port = n
	}
	g := &Gateway{Raw: raw, Host: host, Port: port, AgentURL: raw}
	if g.HostsEntry() == "" && host != "localhost" {
		v := *u
		v.Host = g.Listen()
		if u.Port() == "" {
			v.Host = "127.0.0.1"
		}
		g.AgentURL = v.String()
	}
	return g, nil
}

// Stats count what a Forwarder carried.
type Stats struct {
	// Connections counts the agent's connections accepted.
	Connections int64 `json:"connections"`
	// DialFailures counts those the gateway did not accept (each closed
	// at once).
	DialFailures int64 `json:"dial_failures"`
	// Rejected counts connections refused because MaxConns were open.
	Rejected int64 `json:"rejected"`
	// BytesToGateway and BytesFromGateway count the bytes carried each
	// way.
	BytesToGateway   int64 `json:"bytes_to_gateway"`
	BytesFromGateway int64 `json:"bytes_from_gateway"`
}

// MaxConns bounds the connections a Forwarder holds open at once: an
// agent cannot spend srb's file descriptors without bound.
const MaxConns = 64

// DialTimeout bounds one dial of the gateway.
const DialTimeout = 10 * time.Second

// Forwarder accepts the agent's connections inside its container and
// carries each to the gateway. Close it when the agent phase ends.
type Forwarder struct {
	lns    []net.Listener
	target string
	dial   func(network, addr string) (net.Conn, error)

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
	open  atomic.Int64
	stats struct {
		conns, dialFail, rejected, up, down atomic.Int64
	}
	closeOnce sync.Once
}

// Listen opens a forwarder for g in the network namespace of the process
// pid (the agent container's first process, [engine.Session.HostPID]),
// listening on g.Listen() there, and on g.ListenIPv6() when the
// namespace's loopback has an IPv6 address ([Forwarder.Addrs] says which).
// Every connection accepted is carried to g.Target(), dialled from srb's
// own namespace.
func Listen(pid int, g *Gateway) (*Forwarder, error) {
	lns, err := listenInNetNS(fmt.Sprintf("/proc/%d/ns/net", pid), g.Listen(), g.ListenIPv6())
	if err != nil {
		return nil, fmt.Errorf("gateway: listening on %s in the agent's container: %w (srb trial --gateway needs srb on the engine's machine, as root)", g.Listen(), err)
	}
	return Serve(g.Target(), lns...), nil
}

// Serve forwards the connections every one of lns accepts to target until
// Close.
func Serve(target string, lns ...net.Listener) *Forwarder {
	f := &Forwarder{lns: lns, target: target, conns: map[net.Conn]bool{},
		dial: func(network, addr string) (net.Conn, error) { return net.DialTimeout(network, addr, DialTimeout) }}
	for _, ln := range lns {
		f.wg.Add(1)
		go f.accept(ln)
	}
	return f
}

// Addrs are the addresses the forwarder listens on, IPv4 first.
func (f *Forwarder) Addrs() []string {
	var out []string
	for _, ln := range f.lns {
		out = append(out, ln.Addr().String())
	}
	return out
}

// noIPv6 says whether err is a namespace without IPv6 loopback (IPv6
// disabled, or ::1 not configured) rather than a real failure.
func noIPv6(err error) bool {
	return errors.Is(err, unix.EADDRNOTAVAIL) || errors.Is(err, unix.EAFNOSUPPORT) || errors.Is(err, unix.EPROTONOSUPPORT)
}

// listenInNetNS listens on v4 (TCP, IPv4) in the network namespace
// nsPath, and on v6 (TCP, IPv6; "" for none) at the port the IPv4 socket
// got when the namespace has IPv6 loopback; a namespace without it gives
// the IPv4 listener alone, any other failure an error. The sockets are
// made by a thread moved into that namespace and moved back; a socket
// stays in the namespace it was made in, and is accepted from any thread.
// A thread that cannot be moved back is never reused (it ends with its
// goroutine, still locked).
func listenInNetNS(nsPath, v4, v6 string) ([]net.Listener, error) {
	type res struct {
		lns []net.Listener
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			ch <- res{err: err}
			return
		}
		defer self.Close()
		target, err := os.Open(nsPath)
		if err != nil {
			ch <- res{err: err}
			runtime.UnlockOSThread()
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- res{err: fmt.Errorf("setns %s: %w", nsPath, err)}
			runtime.UnlockOSThread()
			return
		}
		lns, err := listenBoth(v4, v6)
		if unix.Setns(int(self.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		ch <- res{lns, err}
	}()
	r := <-ch
	return r.lns, r.err
}

// listenBoth listens on v4, then on v6 at v4's port (see listenInNetNS),
// in the calling thread's network namespace.
func listenBoth(v4, v6 string) ([]net.Listener, error) {
	ln4, err := net.Listen("tcp4", v4)
	if err != nil || v6 == "" {
		if err != nil {
			return nil, err
		}
		return []net.Listener{ln4}, nil
	}
	host, _, err := net.SplitHostPort(v6)
	if err != nil {
		ln4.Close()
		return nil, err
	}
	port := strconv.Itoa(ln4.Addr().(*net.TCPAddr).Port)
	ln6, err := net.Listen("tcp6", net.JoinHostPort(host, port))
	switch {
	case err != nil && noIPv6(err):
		return []net.Listener{ln4}, nil
	case err != nil:
		ln4.Close()
		return nil, err
	}
	return []net.Listener{ln4, ln6}, nil
}

func (f *Forwarder) accept(ln net.Listener) {
	defer f.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if f.open.Load() >= MaxConns {
			f.stats.rejected.Add(1)
			c.Close()
			continue
		}
		f.stats.conns.Add(1)
		f.open.Add(1)
		f.wg.Add(1)
		go f.carry(c)
	}
}

// carry carries one connection both ways until either side closes.
func (f *Forwarder) carry(c net.Conn) {
	defer f.wg.Done()
	defer f.open.Add(-1)
	if !f.track(c) {
		c.Close()
		return
	}
	defer f.untrack(c)
	up, err := f.dial("tcp", f.target)
	if err != nil {
		f.stats.dialFail.Add(1)
		return
	}
	if !f.track(up) {
		up.Close()
		return
	}
	defer f.untrack(up)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn, n *atomic.Int64) {
		w, _ := io.Copy(dst, src)
		n.Add(w)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, c, &f.stats.up)
	go pipe(c, up, &f.stats.down)
	<-done
	<-done
}

// track records an open connection; false when the forwarder is closed.
func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		return false
	}
	f.conns[c] = true
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	if f.conns != nil {
		delete(f.conns, c)
	}
	f.mu.Unlock()
	c.Close()
}

// Close stops accepting, closes every connection still open and returns
// what the forwarder carried. Later calls return the same counts.
func (f *Forwarder) Close() Stats {
	f.closeOnce.Do(func() {
		for _, ln := range f.lns {
			ln.Close()
		}
		f.mu.Lock()
		for c := range f.conns {
			c.Close()
		}
		f.conns = nil
		f.mu.Unlock()
		f.wg.Wait()
	})
	return Stats{Connections: f.stats.conns.Load(), DialFailures: f.stats.dialFail.Load(), Rejected: f.stats.rejected.Load(),
		BytesToGateway: f.stats.up.Load(), BytesFromGateway: f.stats.down.Load()}
}

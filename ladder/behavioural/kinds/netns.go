package kinds

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// A network namespace the helper makes for a process of the submission
// that the helper must reach (an http module's server), and the helper's
// way into it. The server is started in it (proc.Spec.NetNS), so it has
// only its own loopback, as every other process of the submission has
// with --host as root; the helper's sockets to it are made by a thread
// that joined the namespace. A socket stays in the namespace it was made
// in, and is used from any thread after; the thread that joined is never
// unlocked, so it ends with its goroutine rather than run anything else
// of the helper in the submission's namespace.

// inNetNS runs f on a thread of its own in the network namespace ns (a
// fresh one when ns is nil) and returns what f returned. The thread is
// locked for f and never unlocked: it ends with the goroutine.
func inNetNS[T any](ns *os.File, f func() (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		var zero T
		var err error
		if ns == nil {
			err = unix.Unshare(unix.CLONE_NEWNET)
		} else {
			err = unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET)
		}
		if err != nil {
			ch <- res{zero, err}
			return
		}
		v, err := f()
		ch <- res{v, err}
	}()
	r := <-ch
	return r.v, r.err
}

// newNetNS makes a network namespace with only its loopback, up, and
// returns it open (/proc/thread-self/ns/net of the thread that made it):
// it lives as long as the file is open or a process is in it.
func newNetNS() (*os.File, error) {
	ns, err := inNetNS(nil, func() (*os.File, error) {
		if err := loopbackUp(); err != nil {
			return nil, fmt.Errorf("its loopback: %w", err)
		}
		return os.Open("/proc/thread-self/ns/net")
	})
	if err != nil {
		return nil, fmt.Errorf("a network namespace for the server: %w", err)
	}
	return ns, nil
}

// dialer makes a TCP connection to addr within timeout.
type dialer func(addr string, timeout time.Duration) (net.Conn, error)

// dialHost dials from the helper's own network namespace.
func dialHost(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}

// dialIn returns a dialer whose connections are made in the network
// namespace ns; nil ns is [dialHost].
func dialIn(ns *os.File) dialer {
	if ns == nil {
		return dialHost
	}
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		return inNetNS(ns, func() (net.Conn, error) { return net.DialTimeout("tcp", addr, timeout) })
	}
}

// freePortIn returns a TCP port of 127.0.0.1 that nothing listens on in
// the network namespace ns (the helper's own when nil).
func freePortIn(ns *os.File) (int, error) {
	listen := func() (int, error) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	if ns == nil {
		return listen()
	}
	return inNetNS(ns, listen)
}

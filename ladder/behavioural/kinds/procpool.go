package kinds

import (
	"errors"
	"sync"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// procPool runs a module's processes in idle process inits
// ([proc.Server]) rather than starting an init per process: a command
// module's cases, one at a time per init, each contained as [proc.Start]
// contains it (every process of a case is gone before its report, and so
// before the helper compares anything). A process the servers do not run
// (traced, or in the jail's cgroup) is started alone.
type procPool struct {
	mu     sync.Mutex
	idle   []*proc.Server
	closed bool
}

// start starts spec in an idle server (or a new one) and returns the
// process and the server to give back with [procPool.put] once the
// process is done (nil when it was started alone).
func (pp *procPool) start(spec proc.Spec) (*proc.Process, *proc.Server, error) {
	if pp == nil || spec.TraceExecs || len(spec.Cgroups) > 0 || spec.CgroupNS || spec.NetNS != nil {
		p, err := proc.Start(spec)
		return p, nil, err
	}
	for range 2 {
		sv := pp.get()
		if sv == nil {
			break
		}
		p, err := sv.Start(spec)
		switch {
		case errors.Is(err, proc.ErrNotServed):
			pp.put(sv)
			p, err := proc.Start(spec)
			return p, nil, err
		case errors.Is(err, proc.ErrServerGone):
			sv.Close()
			continue // its init ended: another one
		case err != nil:
			pp.put(sv) // the command could not start; the server is idle
			return nil, nil, err
		}
		return p, sv, nil
	}
	p, err := proc.Start(spec)
	return p, nil, err
}

// get returns an idle server, or a new one (nil when none can be made,
// or the pool is closed).
func (pp *procPool) get() *proc.Server {
	pp.mu.Lock()
	if pp.closed {
		pp.mu.Unlock()
		return nil
	}
	if n := len(pp.idle); n > 0 {
		sv := pp.idle[n-1]
		pp.idle = pp.idle[:n-1]
		pp.mu.Unlock()
		return sv
	}
	pp.mu.Unlock()
	sv, err := proc.NewServer()
	if err != nil {
		return nil
	}
	return sv
}

// put gives a server back once its process is done (a server whose
// init ended, or one given back after close, is closed).
func (pp *procPool) put(sv *proc.Server) {
	if pp == nil || sv == nil {
		return
	}
	pp.mu.Lock()
	if pp.closed || sv.Dead() {
		pp.mu.Unlock()
		sv.Close()
		return
	}
	pp.idle = append(pp.idle, sv)
	pp.mu.Unlock()
}

// close ends the idle servers; those still running a process are ended
// when it is given back.
func (pp *procPool) close() {
	if pp == nil {
		return
	}
	pp.mu.Lock()
	idle := pp.idle
	pp.idle, pp.closed = nil, true
	pp.mu.Unlock()
	for _, sv := range idle {
		sv.Close()
	}
}

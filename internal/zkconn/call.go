package zkconn

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/internal/zkerr"
)

// call runs f, a blocking go-zookeeper call, for a caller whose ctx may end
// first. go-zookeeper takes no context and cannot take a request back, so
// with a ctx that can end f runs on a goroutine of its own: if ctx ends
// first, call returns ctx.Err() itself at once, and f runs on until
// go-zookeeper answers, when late (if set) is given the answer. So late is
// called exactly when call returned ctx.Err(): a ctx that had ended before
// the call gives an error that wraps it, f unrun. Close waits for f and
// late. A call made once Close has begun fails with zkerr.ErrClosed, f
// unrun.
func (c *Conn) call(ctx context.Context, r request, f func() (int, error), late func(request, error)) error {
	if c.cfg.OnRequest != nil {
		f = c.reported(r, f)
	}
	if ctx.Done() == nil {
		if c.isClosed() {
			return zkerr.ErrClosed
		}
		_, err := f()
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: request not sent", err)
	}
	p := &pendingCall{r: r, f: f, late: late, done: make(chan error, 1)}
	// Counted under the lock Close sets closed with, before it waits: a
	// call either is counted before Close waits, or sees closed.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return zkerr.ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go c.runPending(p)
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case err := <-p.done: // answered just now
		return err
	default:
		p.abandoned = true
		return ctx.Err()
	}
}

// pendingCall is a call running on its own goroutine: one allocation for
// all the state the caller and the goroutine share.
type pendingCall struct {
	r    request // what late is told of
	f    func() (int, error)
	late func(request, error)
	done chan error // buffered: the answer, unless abandoned

	mu        sync.Mutex
	abandoned bool // the caller left: the answer goes to late
}

// runPending runs p.f and hands its answer to the caller, or to p.late if
// the caller has left.
func (c *Conn) runPending(p *pendingCall) {
	defer c.wg.Done()
	_, err := p.f()
	p.mu.Lock()
	abandoned := p.abandoned
	if !abandoned {
		p.done <- err
	}
	p.mu.Unlock()
	if abandoned && p.late != nil {
		p.late(p.r, err)
	}
}

func (c *Conn) isClosed() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// request names a request for the request hook: its operation, its path,
// and the size of its frame.
type request struct {
	op   string
	path string
	out  int
}

// reported is f, a request's call that returns the size of the reply's
// frame, timed and told to Config.OnRequest once answered.
func (c *Conn) reported(r request, f func() (int, error)) func() (int, error) {
	return func() (int, error) {
		start := time.Now()
		in, err := f()
		c.cfg.OnRequest(RequestInfo{Start: start, Op: r.op, Path: r.path, Latency: time.Since(start), Err: err, BytesOut: r.out, BytesIn: in})
		return in, err
	}
}

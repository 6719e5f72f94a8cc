package supervise

import (
	"os"
	"syscall"
	"time"
)

// Watch is what Supervise watches besides the command.
type Watch struct {
	// Lost is closed when what the command runs under is lost (a lock, a
	// term of leadership): the group is then stopped at once. Nil never
	// closes.
	Lost <-chan struct{}
	// Grace returns the time between SIGTERM and SIGKILL when the group
	// is stopped; it is asked at that moment. Nil means no grace: SIGKILL
	// right after SIGTERM.
	Grace func() time.Duration
	// Signals are passed on to every member of the group (signals that
	// are not a syscall.Signal are ignored). Nil passes none.
	Signals <-chan os.Signal
}

// Result is how a supervised command ended.
type Result struct {
	// Status is the command's own status (the group leader's).
	Status Status
	// Lost reports that the group was stopped because Watch.Lost closed.
	Lost bool
	// Leftovers reports that members of the group outlived the command
	// and were stopped.
	Leftovers bool
	// Killed reports that some member was still there after the grace
	// period and got SIGKILL.
	Killed bool
}

// settleTime is how long members of the group may take to end after the
// command did before they count as left over: a signal that ended the
// command usually ends them too, a moment later.
const settleTime = 100 * time.Millisecond

// Run starts cmd in a process group of its own and supervises it (see
// Supervise). The error is Start's: the command could not be run.
func Run(cmd Command, w Watch) (Result, error) {
	g, err := Start(cmd)
	if err != nil {
		return Result{}, err
	}
	return g.Supervise(w), nil
}

// Supervise passes w.Signals on to the group until the command exits or
// w.Lost closes, and returns once no member of the group is left: if the
// command exits while other members run, or when w.Lost closes, it stops
// the group (see Stop) with w.Grace. So when it returns, nothing the
// command started in its group runs any more.
func (g *Group) Supervise(w Watch) Result {
	for {
		select {
		case sig := <-w.Signals:
			if s, ok := sig.(syscall.Signal); ok {
				g.Signal(s)
			}
		case <-w.Lost:
			// The command may have exited too, and the select chosen the
			// loss: members still running then outlived it.
			leftovers := isClosed(g.Exited()) && !isClosed(g.Empty())
			r := Result{Lost: true, Leftovers: leftovers, Killed: g.Stop(grace(w))}
			<-g.Exited()
			r.Status = g.Status()
			return r
		case <-g.Exited():
			r := Result{Status: g.Status()}
			settle := time.NewTimer(settleTime)
			defer settle.Stop()
			select {
			case <-g.Empty():
			case <-settle.C:
				r.Leftovers, r.Killed = true, g.Stop(grace(w))
			case <-w.Lost: // the leftovers must be gone within the grace of the loss too
				r.Leftovers, r.Lost, r.Killed = true, true, g.Stop(grace(w))
			}
			return r
		}
	}
}

func grace(w Watch) time.Duration {
	if w.Grace == nil {
		return 0
	}
	return max(w.Grace(), 0)
}

// isClosed reports whether ch is closed (false for a nil ch).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

package harness

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gocurator/curator/observe"
)

// HookSet is hooks that the gocurator rows can run with (--hooks NAME):
// its row is gocurator+NAME, whose every client gets a hook from New.
type HookSet struct {
	Name string
	New  func() (any, error) // a hook for one client (framework.WithHooks)
}

// noopHook hears everything and does nothing: its row (--hooks noop)
// costs the delivery itself (an event built, queued and handed to a
// goroutine).
type noopHook struct{}

func (noopHook) OnRequest(observe.Request)             {}
func (noopHook) OnOperation(observe.Operation)         {}
func (noopHook) OnRetry(observe.Retry)                 {}
func (noopHook) OnState(observe.State)                 {}
func (noopHook) OnAcquire(observe.Acquire)             {}
func (noopHook) OnRelease(observe.Release)             {}
func (noopHook) OnLoss(observe.Loss)                   {}
func (noopHook) OnTermStart(observe.TermStart)         {}
func (noopHook) OnTermEnd(observe.TermEnd)             {}
func (noopHook) OnCacheChange(observe.CacheChange)     {}
func (noopHook) OnCacheResync(observe.CacheResync)     {}
func (noopHook) OnCacheStale(observe.CacheStale)       {}
func (noopHook) OnCacheOverflow(observe.CacheOverflow) {}
func (noopHook) OnTrySet(observe.TrySet)               {}

// hookNames lists a program's hook sets for the flag's help: ", a, b".
func hookNames(sets []HookSet) string {
	var s string
	for _, set := range sets {
		s += ", " + set.Name
	}
	return s
}

// printHookCosts prints, for each workload with hooked gocurator rows,
// each one's rate over the plain gocurator row's (the median over rounds
// of the paired ratios, with its 95 % interval) and the client CPU it
// added per cycle.
func printHookCosts(rs []result) {
	plain := map[string]*result{}
	for i := range rs {
		if rs[i].Impl == "gocurator" {
			plain[rs[i].Workload] = &rs[i]
		}
	}
	var lines []string
	for i := range rs {
		r := &rs[i]
		g, ok := plain[r.Workload]
		if !ok || !strings.HasPrefix(r.Impl, "gocurator+") {
			continue
		}
		p, ok := pairRounds(r, g)
		if !ok {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s\t%s\t%.3f×\t[%.3f–%.3f]\t%+.1f %%\t%+.1f\t", r.Workload, r.Impl, p.Median, p.Low, p.High,
			(p.Median-1)*100, r.CPUPerCycleUs-g.CPUPerCycleUs))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hooks\trow\tcycles/s vs gocurator (median of rounds)\t95 % CI\tchange\tclient CPU µs/cycle added\t")
	for _, l := range lines {
		fmt.Fprintln(tw, l)
	}
	tw.Flush()
}

package locks_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// lockLog records what a LockHook hears.
type lockLog struct {
	mu       sync.Mutex
	acquires []observe.Acquire
	releases []observe.Release
	losses   []observe.Loss
}

func (l *lockLog) OnAcquire(e observe.Acquire) {
	l.mu.Lock()
	l.acquires = append(l.acquires, e)
	l.mu.Unlock()
}
func (l *lockLog) OnRelease(e observe.Release) {
	l.mu.Lock()
	l.releases = append(l.releases, e)
	l.mu.Unlock()
}
func (l *lockLog) OnLoss(e observe.Loss) { l.mu.Lock(); l.losses = append(l.losses, e); l.mu.Unlock() }

func (l *lockLog) await(t *testing.T, acquires, releases, losses int) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d acquires, %d releases, %d losses", acquires, releases, losses), func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.acquires) >= acquires && len(l.releases) >= releases && len(l.losses) >= losses,
			fmt.Sprintf("%+v %+v %+v", l.acquires, l.releases, l.losses)
	})
}

// A contended mutex: the hooks hear the holder's acquire, a busy try, the
// waiter's acquire once it held (its wait spanning the holder's release),
// each release with its hold's length, and the label and the lock's path,
// never a node's.
func TestHooksHearAContendedLock(t *testing.T) {
	var log lockLog
	cs := clients(t, 2, framework.WithHooks(&log))
	ctx := ctxT(t)
	a, _ := locks.NewMutex(cs[0], "/lock", locks.WithLabel("orders"))
	b, _ := locks.NewMutex(cs[1], "/lock", locks.WithLabel("orders"))
	ha, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("TryAcquire while held: %v", err)
	}
	got := make(chan *locks.Hold)
	go func() {
		h, _ := b.Acquire(ctx)
		got <- h
	}()
	waitChildren(t, cs[0], "/lock", 2) // b waits
	if err := ha.Release(ctx); err != nil {
		t.Fatal(err)
	}
	hb := <-got
	if hb == nil {
		t.Fatal("the waiter did not acquire")
	}
	if err := hb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	log.await(t, 3, 2, 0)
	log.mu.Lock()
	defer log.mu.Unlock()
	want := []observe.Outcome{observe.Acquired, observe.Busy, observe.Acquired}
	for i, e := range log.acquires {
		if e.Outcome != want[i] || e.Recipe != "mutex" || e.Label != "orders" || e.Path != "/lock" {
			t.Errorf("acquire %d heard as %+v, want %v of the mutex /lock labelled orders", i, e, want[i])
		}
	}
	// The waiter's acquire began before the first hold's release and ended
	// after it.
	if w, r := log.acquires[2], log.releases[0]; !w.Time.Before(r.Time) || w.Time.Add(w.Wait).Before(r.Time) {
		t.Errorf("the waiter's acquire from %v for %v, the first release at %v: the wait must span the release", w.Time, w.Wait, r.Time)
	}
	for i, e := range log.releases {
		if e.Err != nil || e.Held <= 0 || e.Path != "/lock" {
			t.Errorf("release %d heard as %+v", i, e)
		}
	}
	if len(log.losses) != 0 {
		t.Errorf("losses heard: %+v", log.losses)
	}
}

// A hold lost to a session expiry is heard as a loss whose cause says so.
func TestHooksHearALostHold(t *testing.T) {
	var log lockLog
	c := clients(t, 1, framework.WithHooks(&log))[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	<-h.Lost()
	log.await(t, 1, 0, 1)
	if err := h.Release(ctx); !errors.Is(err, locks.ErrLockLost) {
		t.Fatalf("releasing the lost hold: %v", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.losses) != 1 {
		t.Fatalf("losses heard %+v, want one", log.losses)
	}
	if l := log.losses[0]; !errors.Is(l.Cause, locks.ErrLockLost) || l.Recipe != "mutex" || l.Held <= 0 {
		t.Errorf("loss heard as %+v, want the mutex's hold lost", l)
	}
	if !errors.Is(log.losses[0].Cause, framework.ErrConnectionLoss) && !errors.Is(log.losses[0].Cause, framework.ErrSessionExpired) {
		t.Errorf("loss's cause %v says neither the suspension nor the expiry", log.losses[0].Cause)
	}
}

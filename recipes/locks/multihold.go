package locks

import (
	"context"
	"errors"
	"sync"

	"github.com/gocurator/curator/framework"
)

// MultiHold holds every lock of a MultiLock. It is lost as soon as any of
// its holds is: Lost, Err and Fence speak for all of them, as a Hold's do
// for one.
type MultiHold struct {
	holds []*Hold

	mu       sync.Mutex
	lost     chan struct{} // made by Lost
	once     sync.Once     // closes lost
	stop     chan struct{} // ends Lost's watchers; closed by Release
	watchers sync.WaitGroup
	released bool
}

// Holds returns the holds, in acquisition order.
func (h *MultiHold) Holds() []*Hold { return append([]*Hold(nil), h.holds...) }

// Lost returns a channel closed as soon as any of the holds is lost before
// Release. The first call watches every hold (see Hold.Lost), with one
// goroutine per hold that Release stops.
func (h *MultiHold) Lost() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost != nil {
		return h.lost
	}
	h.lost = make(chan struct{})
	if h.released {
		if h.Err() != nil { // the release found a hold lost
			close(h.lost)
		}
		return h.lost
	}
	h.stop = make(chan struct{})
	for _, held := range h.holds {
		lost := held.Lost()
		h.watchers.Add(1)
		go func() {
			defer h.watchers.Done()
			select {
			case <-lost:
				h.once.Do(func() { close(h.lost) })
			case <-h.stop:
			}
		}()
	}
	return h.lost
}

// Err returns nil while every hold is held, and the losses (each wrapping
// ErrLockLost) of the holds that were lost, before Release or found by it.
func (h *MultiHold) Err() error {
	var errs []error
	for _, held := range h.holds {
		if err := held.Err(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Fence returns a transaction op per hold (Hold.Fence), in acquisition
// order: add them to a framework.Client.Txn, and the write commits only
// while every hold is current. A hold's fence works only on its own client.
func (h *MultiHold) Fence() []framework.Op {
	ops := make([]framework.Op, len(h.holds))
	for i, held := range h.holds {
		ops[i] = held.Fence()
	}
	return ops
}

// Release releases every hold in reverse order and joins their errors.
func (h *MultiHold) Release(ctx context.Context) error {
	h.mu.Lock()
	if h.released {
		h.mu.Unlock()
		return ErrNotOwner
	}
	h.released = true
	stop := h.stop
	h.mu.Unlock()
	err := ReleaseAll(ctx, h.holds)
	if stop != nil {
		close(stop)
		h.watchers.Wait()
	}
	h.mu.Lock()
	if h.lost != nil && h.Err() != nil { // the release found a hold lost: say so, as Hold does
		h.once.Do(func() { close(h.lost) })
	}
	h.mu.Unlock()
	return err
}

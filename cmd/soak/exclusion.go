package main

import (
	"fmt"
	"sync"
	"time"
)

// exclusion checks that at most limit holders of one lock (or leaders of
// one election) are current at once. A holder enters when its hold or term
// begins and leaves before it releases or steps down. A holder that finds
// limit others inside is not a violation by itself: another holder's
// session may have ended on the server, its node with it, before its client
// was told. So each of those others must report the loss (err, under the
// clients' Standard error policy: at the connection's first error state)
// within grace; if more than limit-1 of them never do, two holds were
// current at once.
type exclusion struct {
	name  string
	limit int
	grace time.Duration
	found func(part, what string)
	wg    *sync.WaitGroup // the checks in flight; the soak waits for them

	mu     sync.Mutex
	inside map[int]inside // by holder
	entries,
	overlaps int64 // entries that found limit others inside
}

// inside is a holder in its hold: err reports its loss (nil while current).
type inside struct {
	what string
	err  func() error
}

func newExclusion(name string, limit int, grace time.Duration, wg *sync.WaitGroup, found func(part, what string)) *exclusion {
	return &exclusion{name: name, limit: limit, grace: grace, wg: wg, found: found, inside: make(map[int]inside)}
}

// enter records holder id's hold, described by what, whose loss err
// reports.
func (x *exclusion) enter(id int, what string, err func() error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.entries++
	var others []inside
	for _, in := range x.inside {
		others = append(others, in)
	}
	x.inside[id] = inside{what, err}
	if len(others) < x.limit {
		return
	}
	x.overlaps++
	x.wg.Add(1)
	go x.judge(what, others)
}

// judge waits up to grace for the others to report their losses, and
// reports a violation if more than limit-1 of them stayed current.
func (x *exclusion) judge(what string, others []inside) {
	defer x.wg.Done()
	deadline := time.Now().Add(x.grace)
	for {
		var current []string
		for _, o := range others {
			if o.err() == nil {
				current = append(current, o.what)
			}
		}
		if len(current) < x.limit {
			return
		}
		if time.Now().After(deadline) {
			x.found(x.name, fmt.Sprintf("%s began while %d others were current and stayed so for %v: %v", what, len(current), x.grace, current))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leave records that holder id's hold is over (before its release).
func (x *exclusion) leave(id int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.inside, id)
}

// counts returns the holds begun and those that began beside limit others
// (each of whose losses was then awaited).
func (x *exclusion) counts() (entries, overlaps int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.entries, x.overlaps
}

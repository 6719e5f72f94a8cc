package cache

import (
	"context"
	"sync"
)

// kind is what a read of a node fetches.
type kind uint8

const (
	dataRead     kind = iota // GetWatched: data and stat, with a data watch
	childrenRead             // ChildrenWatched: the children's names, with a child watch
)

// key names one read.
type key struct {
	path string
	kind kind
}

// taskState is where a read is.
type taskState uint8

const (
	queued        taskState = iota
	inFlight                // being read
	inFlightDirty           // being read, and asked for again since it was sent
)

type task struct {
	gen   uint64 // the highest load generation that asked for it (0: a notification)
	state taskState
	watch bool // set a watch with the read (false: a resync's check of a node whose watch survived)
}

// queue holds the reads to make. A read is queued at most once, and one
// read of a key is in flight at most: asked for again while in flight, it
// is made again once the first is applied, so the replies of one key are
// applied in the order the server answered them.
//
// It also counts the reads of the current load generation (the first load,
// or a resync): when none is left, the generation is complete. Reads that
// a generation's reads ask for (a node's new children) belong to it too.
type queue struct {
	mu          sync.Mutex
	tasks       map[key]*task
	peak        int // the most tasks held since tasks was made
	fifo        []key
	cur         uint64 // the current generation
	outstanding int    // reads of generation cur not yet applied
	wake        chan struct{}
}

func newQueue() *queue {
	return &queue{tasks: make(map[key]*task), wake: make(chan struct{}, 1)}
}

// add asks for the read k, with a watch, on behalf of generation gen (0:
// none).
func (q *queue) add(k key, gen uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(k, gen, true)
}

// check asks for the read k without a watch, unless one is asked for
// already: a resync's look at a node whose watch survived the reconnect
// (go-zookeeper sets it again), so that every resync does not leave
// another watch channel behind in go-zookeeper for every unchanged node.
func (q *queue) check(k key, gen uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(k, gen, false)
}

func (q *queue) addLocked(k key, gen uint64, watch bool) {
	t := q.tasks[k]
	if t == nil {
		q.tasks[k] = &task{gen: gen, state: queued, watch: watch}
		q.peak = max(q.peak, len(q.tasks))
		q.fifo = append(q.fifo, k)
		if gen == q.cur && gen != 0 {
			q.outstanding++
		}
		select {
		case q.wake <- struct{}{}:
		default:
		}
		return
	}
	if t.state == inFlight {
		t.state = inFlightDirty
	}
	t.watch = t.watch || watch
	if gen > t.gen {
		if gen == q.cur && t.gen != q.cur {
			q.outstanding++
		}
		t.gen = gen
	}
}

// addAll asks in one step, on behalf of generation gen, for the reads
// reads, and for those of again that are queued or in flight already (one
// in flight is made again once applied): a listing's reads, which the
// workers then take in full batches (nextBatch).
func (q *queue) addAll(reads, again []key, gen uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, k := range reads {
		q.addLocked(k, gen, true)
	}
	for _, k := range again {
		if q.tasks[k] != nil {
			q.addLocked(k, gen, true)
		}
	}
}

// queuedRead is a read to queue, with a watch or not (see check).
type queuedRead struct {
	key   key
	watch bool
}

// regenerate starts a load generation of reads (a resync) and of the
// reads already asked for, in one step. A read in flight is made again
// once applied: it may have gone out before the watch was set again, and
// its reply miss a change made while the watch was away.
func (q *queue) regenerate(reads []queuedRead) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.newGenerationLocked()
	for _, t := range q.tasks {
		if t.state == inFlight {
			t.state = inFlightDirty
		}
	}
	for _, r := range reads {
		q.addLocked(r.key, q.cur, r.watch)
	}
}

// newGeneration starts a load generation and returns it.
func (q *queue) newGeneration() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.newGenerationLocked()
}

func (q *queue) newGenerationLocked() uint64 {
	q.cur++
	// The reads already asked for belong to the new generation too: what
	// they find is part of what it must load.
	q.outstanding = len(q.tasks)
	for _, t := range q.tasks {
		t.gen = q.cur
	}
	return q.cur
}

// next waits for a read to make, marks it in flight, and reports whether
// it sets a watch.
func (q *queue) next(ctx context.Context) (key, bool, bool) {
	batch, watch, ok := q.nextBatch(ctx, nil, 1, false)
	if !ok {
		return key{}, false, false
	}
	return batch[0], watch, true
}

// nextBatch is next that, when the read is a data read, also takes the
// data reads queued right behind it, up to max in all, and returns them
// appended to batch[:0]; watch is the first read's. Reads that set a watch
// go one to a batch (a multiRead sets none), unless watchless says that
// none does (the persistent mode).
func (q *queue) nextBatch(ctx context.Context, batch []key, max int, watchless bool) ([]key, bool, bool) {
	for {
		q.mu.Lock()
		if len(q.fifo) > 0 {
			batch = append(batch[:0], q.pop())
			watch := q.tasks[batch[0]].watch
			for batch[0].kind == dataRead && (watchless || !watch) && len(batch) < max && len(q.fifo) > 0 && q.fifo[0].kind == dataRead && (watchless || !q.tasks[q.fifo[0]].watch) {
				batch = append(batch, q.pop())
			}
			q.mu.Unlock()
			return batch, watch, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
			q.mu.Lock()
			if len(q.fifo) > 0 { // pass the wake-up on to another worker
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			q.mu.Unlock()
		case <-ctx.Done():
			return batch, false, false
		}
	}
}

// pop takes the read at the front of the queue and marks it in flight;
// q.mu is held.
func (q *queue) pop() key {
	k := q.fifo[0]
	q.fifo[0] = key{}
	q.fifo = q.fifo[1:]
	q.tasks[k].state = inFlight
	return k
}

// done marks the read k applied. It reports the generation that became
// complete with it, or 0.
func (q *queue) done(k key) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.tasks[k]
	if t.state == inFlightDirty {
		t.state = queued
		q.fifo = append(q.fifo, k)
		select {
		case q.wake <- struct{}{}:
		default:
		}
		return 0
	}
	delete(q.tasks, k)
	q.shrink()
	if t.gen == q.cur && t.gen != 0 {
		q.outstanding--
		if q.outstanding == 0 {
			return q.cur
		}
	}
	return 0
}

// shrinkAbove is the size from which a drained queue lets its storage go: a
// load queues a read per node, and a map never gives back the room it grew.
const shrinkAbove = 256

// shrink drops the queue's grown storage once it is empty; q.mu is held.
func (q *queue) shrink() {
	if len(q.tasks) == 0 && q.peak > shrinkAbove {
		q.tasks, q.peak = make(map[key]*task), 0
	}
	if len(q.fifo) == 0 && cap(q.fifo) > shrinkAbove {
		q.fifo = nil
	}
}

// pending reports whether the read k is queued or in flight.
func (q *queue) pending(k key) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.tasks[k] != nil
}

// current returns the current generation.
func (q *queue) current() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.cur
}

// genOf returns the generation the read k belongs to now (0: none).
func (q *queue) genOf(k key) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.tasks[k]; t != nil {
		return t.gen
	}
	return 0
}

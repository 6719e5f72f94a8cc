package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gocurator/curator/recipes/queue"
)

// runQueue is a worker of the queue workload: a producer that puts items
// named after it ("w<id>.<inc>-<n>") every --idle at most, until SIGUSR2
// (the harness's call to drain) or ctx ends, and a consumer of the same
// queue (lock-safe or plain), whose work on an item takes up to --gap, and
// which reports each item it takes. ctx, which SIGTERM ends, is the
// queue's lifetime.
func (w *worker) runQueue(ctx context.Context) {
	var q *queue.Queue[string]
	for ctx.Err() == nil { // a Start that fails (a fault) is final: make another queue
		var opts []queue.Option
		if w.cfg.queueMode == "lock-safe" {
			opts = append(opts, queue.WithLockPath(w.cfg.lockPath))
		}
		nq, err := queue.New(w.client, w.cfg.queuePath, queue.String{}, w.consume, opts...)
		if err != nil {
			w.emit(event{Ev: evStartErr}.withErr(err))
			return
		}
		if err = nq.Start(ctx); err == nil {
			q = nq
			break
		}
		w.emit(event{Ev: evStartErr}.withErr(err))
		sleepRand(ctx, 200*time.Millisecond)
	}
	if q == nil {
		return
	}
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	defer signal.Stop(usr2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the producer
		defer wg.Done()
		for n := 1; ; n++ {
			select {
			case <-usr2:
				return
			case <-ctx.Done():
				return
			default:
			}
			item := fmt.Sprintf("%s-%d", holderName(w.cfg.id, w.cfg.inc), n)
			pctx, cancel := context.WithTimeout(ctx, w.cfg.txnTimeout)
			start := time.Now().UnixNano()
			err := q.Put(pctx, item)
			cancel()
			ev := event{Ev: evPut, Data: item, Start: start, Outcome: outOK}.withErr(err)
			if err != nil {
				ev.Outcome = outError
			}
			w.emit(ev)
			sleepRand(ctx, w.cfg.idle)
		}
	}()
	<-ctx.Done()
	q.Close()
	wg.Wait()
}

// consume is the queue workload's Consumer: some work, then the item is
// reported taken. A lock-safe consumer whose context ends first gives the
// item up instead (it stays in the queue); a plain one has the item
// removed already, and always reports it.
func (w *worker) consume(ctx context.Context, item string) error {
	session := w.client.SessionID()
	start := time.Now().UnixNano()
	sleepRand(ctx, w.cfg.gap)
	if w.cfg.queueMode == "lock-safe" && ctx.Err() != nil {
		w.emit(event{Ev: evAbandoned, Data: item, Session: session, Start: start}.withErr(context.Cause(ctx)))
		return ctx.Err()
	}
	w.emit(event{Ev: evConsumed, Data: item, Session: session, Start: start})
	return nil
}

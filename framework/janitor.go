package framework

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gocurator/curator/retry"
)

// janitor is the client's one background goroutine for work that must finish
// after its caller has gone: guaranteed deletes, and removing nodes that a
// failed or abandoned create may have left. Each task is retried while the
// client is open and the task's error is retryable; Close stops it.
type janitor struct {
	c      *Client
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	tasks []janitorTask
	wake  chan struct{}
}

type janitorTask struct {
	what string
	path string
	run  func(ctx context.Context) error
}

func startJanitor(c *Client) *janitor {
	ctx, cancel := context.WithCancel(context.Background())
	j := &janitor{c: c, ctx: ctx, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go j.loop()
	return j
}

// add queues a task. It never blocks. An unstarted client has no janitor,
// and has made nothing that needs one: add then drops the task.
func (j *janitor) add(what, path string, run func(ctx context.Context) error) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.tasks = append(j.tasks, janitorTask{what, path, run})
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// pending returns the number of tasks not yet done.
func (j *janitor) pending() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.tasks)
}

func (j *janitor) stop() {
	j.cancel()
	<-j.done
}

func (j *janitor) loop() {
	defer close(j.done)
	for {
		j.mu.Lock()
		if len(j.tasks) == 0 {
			j.mu.Unlock()
			select {
			case <-j.wake:
				continue
			case <-j.ctx.Done():
				return
			}
		}
		t := j.tasks[0]
		j.mu.Unlock()

		err := retry.Do(j.ctx, retry.RetryForever(250*time.Millisecond), t.run)
		switch {
		case j.ctx.Err() != nil:
			j.c.log.Warn("background task abandoned at close", "task", t.what, "path", t.path)
			return
		case err != nil && !errors.Is(err, ErrNoNode):
			j.c.log.Error("background task failed", "task", t.what, "path", t.path, "err", err)
		default:
			j.c.log.Debug("background task done", "task", t.what, "path", t.path)
		}
		j.mu.Lock()
		j.tasks = j.tasks[1:]
		j.mu.Unlock()
	}
}

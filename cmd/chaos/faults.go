package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
)

// The faults, as --faults names them.
const (
	faultFollowerKill  = "follower-kill"  // kill -9 a follower, restart it
	faultLeaderKill    = "leader-kill"    // kill -9 the leader, restart it
	faultHolderKill    = "holder-kill"    // kill -9 the worker holding the lock, start it again
	faultHolderStop    = "holder-stop"    // SIGSTOP the holder past its session timeout, then SIGCONT
	faultSessionExpire = "session-expire" // the server closes the holder's session
	faultDropReply     = "drop-reply"     // the proxies lose the reply to one request each
	faultDisconnect    = "disconnect"     // the proxies cut every client connection
	faultDropSet       = "drop-set-reply" // the proxies lose the reply to one setData each: an increment's write
)

// allFaults returns every fault, in the order a round starts from.
func allFaults() []string {
	return []string{faultFollowerKill, faultLeaderKill, faultHolderKill, faultHolderStop, faultSessionExpire, faultDropReply, faultDisconnect, faultDropSet}
}

// dropOps returns the requests whose replies drop-reply loses, in turn: a
// fenced write, a release's delete, a lock node's create.
func dropOps() []int32 { return []int32{zkwire.OpMulti, zkwire.OpDelete, zkwire.OpCreate} }

// injectFaults injects faults until the duration has passed and every kind
// has been injected at least once, in rounds of every kind in random order,
// with a random quiet time around cfg.gap between two.
func (h *harness) injectFaults(ctx context.Context) {
	end := time.Now().Add(h.cfg.duration)
	done := make(map[string]bool)
	kinds := len(slices.Compact(slices.Sorted(slices.Values(h.cfg.faults))))
	for ctx.Err() == nil && (time.Now().Before(end) || len(done) < kinds) {
		round := slices.Clone(h.cfg.faults)
		h.rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		for _, kind := range round {
			if ctx.Err() != nil || (!time.Now().Before(end) && done[kind]) {
				continue
			}
			f := h.inject(ctx, kind)
			done[kind] = true
			h.faults = append(h.faults, f)
			h.lastFaultEnd = f.End
			h.log.Info("fault", "kind", f.Kind, "target", f.Target, "took", f.End.Sub(f.Start).Round(time.Millisecond), "note", f.Note)
			sleep(ctx, h.cfg.gap/2+time.Duration(h.rng.Int64N(int64(h.cfg.gap)+1)))
		}
	}
}

// inject injects one fault and waits until it is over.
func (h *harness) inject(ctx context.Context, kind string) faultRecord {
	f := faultRecord{Kind: kind, Start: time.Now()}
	switch kind {
	case faultFollowerKill, faultLeaderKill:
		f.Target, f.Note = h.killMember(ctx, kind == faultLeaderKill)
	case faultHolderKill, faultHolderStop, faultSessionExpire:
		p, note := h.holder(ctx)
		f.Note = note
		if p == nil {
			break
		}
		f.Target = holderName(p.id, p.inc)
		switch kind {
		case faultHolderKill:
			p.killed = true
			_ = p.cmd.Process.Kill()
			<-p.exited
			if err := h.startWorker(p.id, p.inc+1); err != nil {
				f.Note = "restart failed: " + err.Error()
			}
		case faultHolderStop:
			// A random delay moves the stop around the critical section.
			sleep(ctx, time.Duration(h.rng.Int64N(int64(40*time.Millisecond))))
			_ = p.cmd.Process.Signal(syscall.SIGSTOP)
			sleep(ctx, h.cfg.pause)
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
		case faultSessionExpire:
			_ = p.cmd.Process.Signal(syscall.SIGUSR1)
			sleep(ctx, h.cfg.session/2)
		}
	case faultDropReply, faultDropSet:
		op := zkwire.OpSetData
		if kind == faultDropReply {
			ops := dropOps()
			op = ops[h.dropRotation%len(ops)]
			h.dropRotation++
		}
		for _, p := range h.proxies {
			p.DropAfter(op)
		}
		sleep(ctx, h.cfg.session/2)
		for _, p := range h.proxies {
			p.DropAfter(0)
		}
		f.Target = fmt.Sprintf("opcode %d", op)
	case faultDisconnect:
		for _, p := range h.proxies {
			p.DropAll()
		}
		f.Target = "every connection"
	}
	f.End = time.Now()
	return f
}

// killMember kills the leader or a follower with SIGKILL, keeps it down
// for cfg.down, reads its transaction logs (the restart wipes them) and
// restarts it.
func (h *harness) killMember(ctx context.Context, leader bool) (target, note string) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	l, err := h.ens.Leader(lctx)
	cancel()
	if err != nil {
		return "", "no leader: " + err.Error()
	}
	i := l
	if !leader {
		i = (l + 1 + h.rng.IntN(h.ens.Size()-1)) % h.ens.Size()
	}
	target = fmt.Sprintf("m%d", i+1)
	if err := h.ens.Kill(i); err != nil {
		return target, err.Error()
	}
	sleep(ctx, h.cfg.down)
	set, err := h.readLogs(i, fmt.Sprintf("killed at %s", time.Now().Format(time.TimeOnly)))
	if err != nil {
		note = "logs unread: " + err.Error()
	} else {
		h.harvest = append(h.harvest, set)
	}
	if err := h.ens.Restart(i); err != nil {
		note = strings.TrimSpace(note + " restart failed: " + err.Error())
	}
	return target, note
}

// holder returns the process of the worker whose node is first in the
// lock's queue (in the queue workload, the worker holding the oldest item's
// lock; without locks, any worker). It looks for up to two session
// timeouts: the first node may be a killed worker's, until its session
// expires.
func (h *harness) holder(ctx context.Context) (*proc, string) {
	if h.cfg.workload == "queue" && h.cfg.queueMode == "plain" {
		return h.procs[1+h.rng.IntN(h.cfg.workers)], ""
	}
	deadline := time.Now().Add(2 * h.cfg.session)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		name, err := h.firstNodeData(cctx)
		cancel()
		var id, inc int
		if err == nil {
			if _, serr := fmt.Sscanf(name, "w%d.%d", &id, &inc); serr == nil {
				if p := h.procs[id]; p != nil && p.inc == inc {
					return p, ""
				}
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Sprintf("no holder found (%q, %v)", name, err)
		}
		sleep(ctx, 20*time.Millisecond)
	}
}

// firstNodeData returns the data of the lock's first node.
func (h *harness) firstNodeData(ctx context.Context) (string, error) {
	kids, _, err := h.admin.Children(ctx, h.cfg.lockPath)
	if err != nil {
		return "", err
	}
	if len(kids) == 0 {
		return "", fmt.Errorf("no lock node")
	}
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(lockSeq(a), lockSeq(b)) })
	data, _, err := h.admin.Get(ctx, h.cfg.lockPath+"/"+kids[0])
	return string(data), err
}

// lockSeq is the part of a lock node's name the mutex sorts on: the text
// after the last "lock-".
func lockSeq(name string) string {
	if i := strings.LastIndex(name, "lock-"); i >= 0 {
		return name[i+len("lock-"):]
	}
	return name
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

package main

import (
	"context"
	"fmt"
	"time"
)

// The faults, as --faults names them.
const (
	faultFollowerKill  = "follower-kill"  // kill -9 a follower, restart it after cfg.down
	faultLeaderKill    = "leader-kill"    // kill -9 the leader, restart it after cfg.down
	faultDisconnect    = "disconnect"     // the proxies cut every client connection
	faultSessionExpire = "session-expire" // the server closes one client's session
)

// allFaults returns every fault, in the order the soak takes them in turn.
func allFaults() []string {
	return []string{faultFollowerKill, faultDisconnect, faultLeaderKill, faultSessionExpire}
}

// injectFaults injects one fault every cfg.faultEvery, taking the kinds in
// turn, until cfg.duration has passed (or ctx ends). The first comes after
// one interval, so that the recipes start on a sound ensemble.
func (s *soak) injectFaults(ctx context.Context) {
	end := s.start.Add(s.cfg.duration)
	next := s.start.Add(s.cfg.faultEvery)
	for n := 0; ; n++ {
		if !next.Before(end) {
			sleep(ctx, time.Until(end))
			return
		}
		sleep(ctx, time.Until(next))
		if ctx.Err() != nil {
			return
		}
		f := s.inject(ctx, s.cfg.faults[n%len(s.cfg.faults)])
		s.mu.Lock()
		s.faults = append(s.faults, f)
		s.mu.Unlock()
		s.log.Info("fault", "kind", f.Kind, "target", f.Target, "took", time.Duration(f.Took*float64(time.Second)).Round(time.Millisecond), "note", f.Note)
		next = next.Add(s.cfg.faultEvery)
	}
}

// inject injects one fault and waits until it is over.
func (s *soak) inject(ctx context.Context, kind string) faultRecord {
	t0 := time.Now()
	f := faultRecord{Kind: kind, At: s.now()}
	switch kind {
	case faultFollowerKill, faultLeaderKill:
		f.Target, f.Note = s.killMember(ctx, kind == faultLeaderKill)
	case faultDisconnect:
		for _, p := range s.proxies {
			p.DropAll()
		}
		f.Target = "every client connection"
	case faultSessionExpire:
		i := s.rng.IntN(len(s.clients))
		f.Target = fmt.Sprintf("client %d", i)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := s.killers[i].Kill(cctx); err != nil {
			f.Note = err.Error()
		}
		cancel()
	}
	f.Took = time.Since(t0).Seconds()
	return f
}

// killMember kills the leader or a follower with SIGKILL, keeps it down for
// cfg.down and restarts it. zkharness restarts a killed member with a wiped
// data directory while the others form a quorum, so that it takes a full
// snapshot from the leader instead of syncing its old log, which Debian's
// ZooKeeper 3.8.0 gets wrong (ZOOKEEPER-4394).
func (s *soak) killMember(ctx context.Context, leader bool) (target, note string) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	l, err := s.ens.Leader(lctx)
	cancel()
	if err != nil {
		return "", "no leader: " + err.Error()
	}
	i := l
	if !leader {
		i = (l + 1 + s.rng.IntN(s.ens.Size()-1)) % s.ens.Size()
	}
	target = fmt.Sprintf("m%d", i+1)
	if err := s.ens.Kill(i); err != nil {
		return target, err.Error()
	}
	sleep(ctx, s.cfg.down)
	if err := s.ens.Restart(i); err != nil {
		note = "restart failed: " + err.Error()
	}
	return target, note
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

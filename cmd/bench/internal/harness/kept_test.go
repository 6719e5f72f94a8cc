package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
)

// TestKeptSessions runs a workload in turns with --keep-sessions: every
// turn of a row uses the clients its first turn opened (the row's hooks
// were made once per client, not per turn), the turns' rounds are merged,
// and closing the kept clients closes them. The many-locks workload keeps
// its clients too.
func TestKeptSessions(t *testing.T) {
	made := 0
	set := &HookSet{Name: "counting", New: func() (any, error) { made++; return &countingHook{}, nil }}
	e := serverEnv(t, 600*time.Millisecond)
	e.kept = &keptClients{rows: map[string]*keptRow{}}
	rs := interleaved(e, options{rounds: 3}, "mutex-contended", []impl{curatorGo{set}, floor{}}, nil, runMutexContended)
	if made != 8 {
		t.Errorf("%d hooks made for 3 turns of 8 clients: want 8, the clients made once", made)
	}
	for _, r := range rs {
		if r.Error != "" || r.Rounds != 3 || len(r.RoundRates) != 3 || r.Violations != 0 {
			t.Fatalf("%s: %+v", r.Impl, r)
		}
	}
	kept := e.kept.rows[curatorGo{set}.name()].sessions
	if len(kept) != 8 {
		t.Fatalf("%d kept sessions for the hooked row, want 8", len(kept))
	}
	e.kept.close()
	for _, s := range kept {
		if _, _, err := s.(*goSession).c.Exists(context.Background(), "/"); !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("a kept client, once closed: %v, want ErrClosed", err)
		}
	}

	// many-locks too, through o.keepSessions: its clients are made once.
	made = 0
	e.kept = nil
	rs = interleaved(e, options{rounds: 3, keepSessions: true}, "many-locks-2", []impl{curatorGo{set}}, nil,
		func(e env, im impl) result { return runManyLocks(e, im, 2, 4) })
	if made != 2 || rs[0].Error != "" || rs[0].Rounds != 3 || rs[0].Violations != 0 {
		t.Errorf("many-locks-2, 3 turns: %d hooks made (want 2), %+v", made, rs[0])
	}
}

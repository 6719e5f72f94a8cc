package zkconn

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gocurator/curator/internal/zkwire"
)

// frame encodes a request as go-zookeeper writes it: length, xid, opcode,
// then (for a multi) a 9-byte op header, then the path.
func frame(xid, opcode int32, multi bool, path string) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(opcode))
	if multi {
		b = append(b, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff) // type create, not done, error -1
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = append(b, 0, 0, 0, 0) // the rest of the request
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func TestWriteWatchKnowsItsRequest(t *testing.T) {
	const path = "/ns/lock/_c_0b7e5e37-33a5-4c67-9a52-d6d8a36c2c0b-lock-"
	for _, tc := range []struct {
		name  string
		frame []byte
		fires bool
	}{
		{"create", frame(7, zkwire.OpCreate, false, path), true},
		{"create2", frame(7, zkwire.OpCreate2, false, path), true},
		{"container", frame(7, zkwire.OpCreateContainer, false, path), true},
		{"ttl", frame(7, zkwire.OpCreateTTL, false, path), true},
		{"multi", frame(7, zkwire.OpMulti, true, path), true},
		{"another path", frame(7, zkwire.OpCreate, false, path+"x"), false},
		{"a prefix", frame(7, zkwire.OpCreate, false, path[:len(path)-1]), false},
		{"a read of the path", frame(7, 4, false, path), false},
		{"a delete of the path", frame(7, 2, false, path), false},
		{"negative xid", frame(-8, zkwire.OpCreate, false, path), false},
		{"truncated", frame(7, zkwire.OpCreate, false, path)[:20], false},
	} {
		var w writeWatch
		notice := NewWriteNotice()
		done := w.add(path, notice)
		w.written(tc.frame)
		w.written(tc.frame) // closing twice would panic
		if closed(notice) != tc.fires {
			t.Errorf("%s: notice closed %v, want %v", tc.name, closed(notice), tc.fires)
		}
		done(false)
		if closed(notice) != tc.fires {
			t.Errorf("%s: a failed request's notice closed when it was done", tc.name)
		}
		if n := w.n.Load(); n != 0 || w.paths() != 0 {
			t.Errorf("%s: %d waiters left on %d paths", tc.name, n, w.paths())
		}
	}
}

// A request answered with success was written, whether or not the send
// loop has told yet.
func TestWriteNoticeClosedOnSuccess(t *testing.T) {
	var w writeWatch
	notice := NewWriteNotice()
	w.add("/a", notice)(true)
	if !closed(notice) || w.pending() != 0 {
		t.Fatalf("closed %v, %d pending", closed(notice), w.pending())
	}
}

func closed(n *WriteNotice) bool {
	select {
	case <-n.C():
		return true
	default:
		return false
	}
}

// paths returns the number of paths with a notice waiting, over the shards.
func (w *writeWatch) paths() int {
	n := 0
	for i := range w.shards {
		w.shards[i].mu.Lock()
		n += len(w.shards[i].waiting)
		w.shards[i].mu.Unlock()
	}
	return n
}

// Notices of many paths, spread over the shards, each closed by its own
// create's frame and by no other.
func TestWriteNoticesOverShards(t *testing.T) {
	var w writeWatch
	notices := map[string]*WriteNotice{}
	for i := range 100 {
		p := fmt.Sprintf("/locks/%d/lock-", i)
		notices[p] = NewWriteNotice()
		w.add(p, notices[p])
	}
	if w.pending() != 100 || w.paths() != 100 {
		t.Fatalf("%d pending on %d paths, want 100", w.pending(), w.paths())
	}
	used := 0
	for i := range w.shards {
		if len(w.shards[i].waiting) > 0 {
			used++
		}
	}
	if used < writeShards/2 {
		t.Errorf("100 paths in %d of %d shards", used, writeShards)
	}
	for i := range 100 {
		p := fmt.Sprintf("/locks/%d/lock-", i)
		w.written(frame(int32(i+1), zkwire.OpCreate, false, p))
		for q, n := range notices {
			want := q == p
			if !want {
				var j int
				fmt.Sscanf(q, "/locks/%d/lock-", &j)
				want = j < i
			}
			if closed(n) != want {
				t.Fatalf("after the create of %s: %s's notice closed %v", p, q, closed(n))
			}
		}
	}
	if w.pending() != 0 || w.paths() != 0 {
		t.Fatalf("%d pending on %d paths after every create", w.pending(), w.paths())
	}
}

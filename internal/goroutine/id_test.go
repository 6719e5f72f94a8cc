package goroutine_test

import (
	"testing"

	"github.com/gocurator/curator/internal/goroutine"
)

func TestID(t *testing.T) {
	id := goroutine.ID()
	if id == 0 || goroutine.ID() != id {
		t.Fatalf("ID: %d, then %d: want one non-zero id", id, goroutine.ID())
	}
	other := make(chan uint64)
	go func() { other <- goroutine.ID() }()
	if o := <-other; o == 0 || o == id {
		t.Fatalf("another goroutine's id: %d (ours %d)", o, id)
	}
}

// The cost of learning the calling goroutine (each Acquire without an Owner
// pays it).
func BenchmarkID(b *testing.B) {
	for b.Loop() {
		goroutine.ID()
	}
}

package locks

import "testing"

func TestGoroutineID(t *testing.T) {
	id := goroutineID()
	if id == 0 || goroutineID() != id {
		t.Fatalf("goroutineID: %d, then %d: want one non-zero id", id, goroutineID())
	}
	other := make(chan uint64)
	go func() { other <- goroutineID() }()
	if o := <-other; o == 0 || o == id {
		t.Fatalf("another goroutine's id: %d (ours %d)", o, id)
	}
}

// The cost each Acquire without an Owner pays to learn its goroutine.
func BenchmarkGoroutineID(b *testing.B) {
	for b.Loop() {
		goroutineID()
	}
}

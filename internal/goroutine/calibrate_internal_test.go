package goroutine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// The fast path must be there on the platforms it is built for: if a Go
// release moves the id out of reach, this fails, rather than ID quietly
// becoming a thousand times slower.
func TestCalibrated(t *testing.T) {
	if getg() == nil {
		t.Skipf("no fast path on %s/%s: ID reads stack traces", runtime.GOOS, runtime.GOARCH)
	}
	if idOffset() < 0 {
		t.Fatalf("the id was not found in the goroutine record (%s): ID reads stack traces", runtime.Version())
	}
}

// ID agrees with the stack trace on many goroutines at once, on the fast
// path and off it.
func TestIDIsTheStackTracesID(t *testing.T) {
	var wg sync.WaitGroup
	ids := make([]uint64, 64)
	for i := range ids {
		wg.Go(func() {
			fast, slow := ID(), traceID()
			if fast != slow {
				t.Errorf("ID %d, the stack trace says %d", fast, slow)
			}
			ids[i] = fast
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, id := range ids {
		if id == 0 || seen[id] {
			t.Fatalf("ids %v: want distinct, non-zero", ids)
		}
		seen[id] = true
	}
}

// fakeRecords gives each goroutine that asks a record of its own, filled
// by fill from the goroutine's id.
type fakeRecords struct {
	mu   sync.Mutex
	fill func(id uint64, words []uint64)
	keep [][]uint64
}

func (f *fakeRecords) record() unsafe.Pointer {
	words := make([]uint64, recordWords)
	f.fill(traceID(), words)
	f.mu.Lock()
	f.keep = append(f.keep, words)
	f.mu.Unlock()
	return unsafe.Pointer(&words[0])
}

func TestCalibrateKeepsOnlyAnOffsetEveryGoroutineAgreesOn(t *testing.T) {
	var made atomic.Int32 // records made, for a word that moves
	// Each fill is given the calibrating goroutine's id, the id of the
	// goroutine whose record it fills, and the record.
	for _, c := range []struct {
		name string
		fill func(calibrating, id uint64, w []uint64)
		want int
	}{
		{"at word 19", func(_, id uint64, w []uint64) { w[19] = id }, 19 * 8},
		{"nowhere", func(_, _ uint64, _ []uint64) {}, -1},
		{"at two words", func(_, id uint64, w []uint64) { w[3], w[19] = id, id }, -1},
		{"a word that matches the calibrating goroutine only", func(calibrating, id uint64, w []uint64) { w[2], w[19] = calibrating, id }, 19 * 8},
		{"a word that moves", func(_, id uint64, w []uint64) { w[made.Add(1)] = id }, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			me := traceID()
			f := &fakeRecords{fill: func(id uint64, w []uint64) { c.fill(me, id, w) }}
			if got := calibrateOn(f.record, traceID); got != c.want {
				t.Errorf("offset %d, want %d", got, c.want)
			}
		})
	}
	t.Run("no record", func(t *testing.T) {
		if got := calibrateOn(func() unsafe.Pointer { return nil }, traceID); got != -1 {
			t.Errorf("offset %d, want -1", got)
		}
	})
	t.Run("no record on the other goroutines", func(t *testing.T) {
		me := traceID()
		f := &fakeRecords{fill: func(id uint64, w []uint64) { w[19] = id }}
		ours := f.record()
		record := func() unsafe.Pointer {
			if traceID() != me {
				return nil
			}
			return ours
		}
		if got := calibrateOn(record, traceID); got != -1 {
			t.Errorf("offset %d, want -1", got)
		}
	})
	t.Run("no id in the stack trace", func(t *testing.T) {
		f := &fakeRecords{fill: func(_ uint64, w []uint64) {}}
		if got := calibrateOn(f.record, func() uint64 { return 0 }); got != -1 {
			t.Errorf("offset %d, want -1", got)
		}
	})
}

// The stack trace's cost, which ID pays where it has no fast path.
func BenchmarkTraceID(b *testing.B) {
	for b.Loop() {
		traceID()
	}
}

package goroutine

import "unsafe"

// recordWords is how many words of the goroutine record calibrate looks
// at. The id sits within them in every Go release since 1.5 (at byte 152 on
// 64-bit platforms in Go 1.26), and the record is several times larger, so
// no read leaves it.
const recordWords = 40

// confirmations is how many goroutines besides the calibrating one must
// agree on the offset.
const confirmations = 3

// calibrate finds where the runtime keeps a goroutine's id in its record,
// without assuming the record's layout, which changes between Go releases:
// it looks for the word that holds the id the stack trace gives, on the
// calling goroutine and on fresh ones, and keeps an offset only if exactly
// one word holds it on every one of them. Otherwise, or where getg cannot
// reach the record, it returns -1, and ID reads stack traces.
func calibrate() int { return calibrateOn(getg, traceID) }

// calibrateOn is calibrate with the record and the stack trace's id of the
// calling goroutine learned from record and trace.
func calibrateOn(record func() unsafe.Pointer, trace func() uint64) int {
	g := record()
	if g == nil {
		return -1
	}
	want := trace()
	if want == 0 {
		return -1
	}
	var candidates []int
	for i := range recordWords {
		if *(*uint64)(unsafe.Add(g, i*8)) == want {
			candidates = append(candidates, i*8)
		}
	}
	for range confirmations {
		if len(candidates) == 0 {
			break
		}
		done := make(chan []int)
		go func() {
			g, want := record(), trace()
			var kept []int
			for _, off := range candidates {
				if g != nil && want != 0 && *(*uint64)(unsafe.Add(g, off)) == want {
					kept = append(kept, off)
				}
			}
			done <- kept
		}()
		candidates = <-done
	}
	if len(candidates) != 1 {
		return -1
	}
	return candidates[0]
}

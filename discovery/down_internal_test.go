package discovery

import (
	"testing"
	"time"
)

// An instance is down from the threshold's error until a purge finds the
// timeout passed since its first error, and purges run at most once per
// half timeout, as in Curator's DownInstanceManager: an instance stays down
// for between one and one and a half timeouts.
func TestDownInstancePolicy(t *testing.T) {
	now := time.Unix(1000, 0)
	d := newDownInstances(0, 0, func() time.Time { return now }) // Curator's defaults: 30 s, 2
	if d.timeout != 30*time.Second || d.threshold != 2 {
		t.Fatalf("defaults %v, %d", d.timeout, d.threshold)
	}
	d.note("a")
	if d.isDown("a") {
		t.Fatal("down after one error")
	}
	now = now.Add(10 * time.Second)
	d.note("a")
	if !d.isDown("a") || d.isDown("b") {
		t.Fatal("not down after two errors")
	}
	now = now.Add(19 * time.Second) // 29 s after the first error: a purge runs, a stays
	if !d.isDown("a") {
		t.Fatal("up before the timeout")
	}
	now = now.Add(time.Second) // 30 s: the purge just ran, the next is 15 s away
	if !d.isDown("a") {
		t.Fatal("purged twice within half a timeout")
	}
	now = now.Add(14 * time.Second) // 44 s
	if d.isDown("a") {
		t.Fatal("still down after the timeout and a purge")
	}
}

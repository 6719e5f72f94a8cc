package harness

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/zkharness"
)

// BenchmarkPipelining is the protocol's floor for one uncontended mutex
// cycle in bare go-zookeeper calls, with the children listing sent after the
// create's reply (serial) or right behind the create, once its request is
// written (pipelined, as the floor and gocurator send it).
func BenchmarkPipelining(b *testing.B) {
	srv, err := zkharness.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	s, _ := connectZK(srv.ConnectString(), true)
	zs := s.(*zkSession)
	c := zs.conn
	defer c.Close()
	c.Create("/p", nil, 0, openACL)
	cycles := map[string]func(){
		"serial": func() {
			p, _ := c.Create("/p/lock-", nil, zk.FlagEphemeralSequential, openACL)
			c.Children("/p")
			c.Delete(p, -1)
		},
		"pipelined": func() {
			var p string
			createThenList(c, zs.sentIn("/p"), "/p", func() error {
				var err error
				p, err = c.Create("/p/lock-", nil, zk.FlagEphemeralSequential, openACL)
				return err
			}, func() string { return p })
			c.Delete(p, -1)
		},
	}
	for _, name := range []string{"serial", "pipelined"} {
		cycle := cycles[name]
		b.Run(name, func(b *testing.B) {
			warm(cycle)
			defer reportCPU(b)()
			for b.Loop() {
				cycle()
			}
		})
	}
}

// BenchmarkMutexCycle is one uncontended acquire and release of a
// gocurator Mutex, with its requests per cycle.
func BenchmarkMutexCycle(b *testing.B) {
	srv, err := zkharness.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	s, _ := curatorGo{}.connect(srv.ConnectString())
	defer s.close()
	a := curatorGo{}.mutex(s, "/m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cycle := func() {
		rel, err := a(ctx)
		if err != nil {
			b.Fatal(err)
		}
		rel(ctx)
	}
	warm(cycle)
	requests := s.counter().Requests()
	defer reportCPU(b)()
	for b.Loop() {
		cycle()
	}
	b.ReportMetric(float64(s.counter().Requests()-requests)/float64(b.N), "req/op")
}

// warm runs cycle unrecorded until the server's JIT has compiled its hot
// paths (a fresh server is several times slower for its first second).
func warm(cycle func()) {
	for range 2000 {
		cycle()
	}
}

// reportCPU reports the process's CPU time per op (the server runs in
// another process): what a cycle costs the client. Call the result when
// the loop is done.
func reportCPU(b *testing.B) func() {
	cpu0 := processCPU()
	return func() { b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op") }
}

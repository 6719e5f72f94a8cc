package main

import (
	"context"
	"runtime"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/recipestest"
)

// BenchmarkPipelining is the protocol's floor for one uncontended mutex
// cycle in bare go-zookeeper calls, with the children listing sent after the
// create's reply (serial) or right behind the create (pipelined).
func BenchmarkPipelining(b *testing.B) {
	srv, err := recipestest.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	s, _ := connectZK(srv.ConnectString())
	c := s.(*zkSession).conn
	defer c.Close()
	c.Create("/p", nil, 0, openACL)
	b.Run("serial", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			p, _ := c.Create("/p/lock-", nil, zk.FlagEphemeralSequential, openACL)
			c.Children("/p")
			c.Delete(p, -1)
		}
	})
	b.Run("pipelined", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			done := make(chan string)
			go func() { p, _ := c.Create("/p/lock-", nil, zk.FlagEphemeralSequential, openACL); done <- p }()
			runtime.Gosched()
			c.Children("/p")
			c.Delete(<-done, -1)
		}
	})
}

// BenchmarkMutexCycle is one uncontended acquire and release of a
// gocurator Mutex, with its requests per cycle.
func BenchmarkMutexCycle(b *testing.B) {
	srv, err := recipestest.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	s, _ := curatorGo{}.connect(srv.ConnectString())
	defer s.close()
	a := curatorGo{}.mutex(s, "/m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer reportCPU(b)()
	for b.Loop() {
		rel, err := a(ctx)
		if err != nil {
			b.Fatal(err)
		}
		rel(ctx)
	}
	b.ReportMetric(float64(s.counter().Requests())/float64(b.N), "req/op")
}

// reportCPU reports the process's CPU time per op (the server runs in
// another process): what a cycle costs the client. Call the result when
// the loop is done.
func reportCPU(b *testing.B) func() {
	cpu0 := processCPU()
	return func() { b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op") }
}

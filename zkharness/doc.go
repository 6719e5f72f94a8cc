// Package zkharness runs real ZooKeeper on loopback ports, and the faults to
// test code against it: standalone servers (plain or TLS) and quorum
// ensembles whose members can be killed, stopped and restarted, a fault
// proxy that drops, silences or holds back a connection's traffic, a
// session killer, a write fault, and a wire counter of requests and
// notifications. Servers come from $ZOOKEEPER_HOME or Debian's zookeeper
// package; without either, starting one fails with the command that
// installs it. It builds on Linux, macOS and Windows; only on Linux does
// the kernel kill a server whose test binary died without cleaning up.
//
// It does not import testing, so programs (a benchmark harness, a chaos
// runner, a command line's throwaway server) can link it. The helpers
// that take a *testing.T, and the conformance suites, are in recipestest.
package zkharness

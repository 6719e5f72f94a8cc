// Package recipestest helps test ZooKeeper recipes against real ZooKeeper,
// with the servers, ensembles and faults of package zkharness: a server per
// test or per package (StartServer, RunWithServer), clients with test-friendly
// timeouts, a fresh namespace per test, a fault proxy closed with the test, a
// goroutine-leak check, a poll for conditions no event announces
// (Eventually), and the conformance suites that users run against their own
// lock drivers (TestLockDriver), in the spirit of testing/fstest.TestFS.
//
// The package is importable (it is not a _test.go file) so that users can
// test their own recipes and drivers the way this module tests its own.
package recipestest

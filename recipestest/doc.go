// Package recipestest is a kit for testing ZooKeeper recipes against real
// ZooKeeper: standalone servers and quorum ensembles on loopback ports, a
// fault proxy that drops or silences connections, a session killer, a fresh
// namespace per test, and a goroutine-leak check. Servers come from
// $ZOOKEEPER_HOME or Debian's zookeeper package; without either, starting one
// fails with the command that installs it.
//
// The package is importable (it is not a _test.go file) so that users can
// test their own recipes and drivers the way this module tests its own.
package recipestest

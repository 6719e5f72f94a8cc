// Command bench measures the lock recipes against go-zookeeper's zk.Lock,
// the bare-call floor of Curator's protocol, Apache Curator (Java) and Kazoo
// (Python), and the other recipes' workloads; package
// cmd/bench/internal/harness has the harness and its flags, and
// docs/performance.md explains the figures.
//
//	go run ./cmd/bench                       # a throwaway server on loopback
//	go run ./cmd/bench --connect 127.0.0.1:2181 --duration 5s --out results.jsonl
//	go run ./cmd/bench --workloads failover --failovers 400 --fsync=false
//	go run ./cmd/bench --impls gocurator,floor --hooks none,noop --workloads mutex-uncontended
//
// cmd/bench/hooks, a module of its own, is the same harness with the
// OpenTelemetry and Prometheus adapters' hooks (docs/observability.md).
package main

import "github.com/gocurator/curator/cmd/bench/internal/harness"

func main() { harness.Main(harness.Program{}) }

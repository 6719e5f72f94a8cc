// Package framework is the Client every recipe stands on: Curator's
// CuratorFramework for Go.
//
// A Client wraps a go-zookeeper connection and adds what Curator adds to the
// plain ZooKeeper handle:
//
//   - every operation takes a context and runs in a retry loop under the
//     client's retry.Policy;
//   - a connection-state machine (Connected, Suspended, Reconnected, Lost)
//     that listeners subscribe to, including Curator's rule that a connection
//     Suspended for the negotiated session timeout is Lost;
//   - namespaces, ACL providers, digest authentication, TLS and default node
//     data;
//   - protected creates (the _c_<uuid>- prefix), container parents, guaranteed
//     deletes, one-shot watches and transactions.
//
// Errors returned by operations can be tested with errors.Is against this
// package's sentinels (ErrNoNode, ErrConnectionLoss, ...) and against
// go-zookeeper's own errors, which they wrap.
package framework

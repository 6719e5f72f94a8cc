// Package zkconn is gocurator's one door to go-zookeeper: no other package
// imports it. A Conn is one ZooKeeper client connection (go-zookeeper's
// Conn and its loops) with everything gocurator must add under it: dialing
// (the user's dialer, TLS), a read buffer, the session handshake read on
// the way through, the reply gate and the reply guard around go-zookeeper's
// data races, a table of watches that needs no goroutine per watch, write
// notices for pipelining, the close sequence, and the conversion of
// go-zookeeper's types and errors into this module's (errors are
// internal/zkerr's values).
//
// Every request takes a context: the call returns when it ends, although
// go-zookeeper, which takes none, cannot take the request back; a create's
// or a transaction's Late hook hears the answer the caller left before.
package zkconn

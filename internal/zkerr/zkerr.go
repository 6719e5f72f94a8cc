// Package zkerr recognises the errors go-zookeeper reports by text alone.
//
// go-zookeeper v1.0.4 has sentinels for most of ZooKeeper's error codes,
// but reports the others as fmt.Errorf("unknown error: %v", code). This is
// the one place that reads those texts; its test pins the go-zookeeper
// version they were read from.
package zkerr

import (
	"errors"
	"strconv"
	"strings"
)

// ZooKeeper's error codes that go-zookeeper has no sentinel for.
const (
	// RuntimeInconsistency (-2) marks the operations of a failed multi that
	// did not fail themselves.
	RuntimeInconsistency int32 = -2
	// Unimplemented (-6) is a request the server does not serve: a TTL
	// create on a server without extended types
	// (zookeeper.extendedTypesEnabled=false, ZooKeeper's default).
	Unimplemented int32 = -6
	// OperationTimeout (-7) is the server's operation timeout.
	OperationTimeout int32 = -7
)

// unknownPrefix is how go-zookeeper v1.0.4 words a code it has no
// sentinel for (ErrCode.toError).
const unknownPrefix = "unknown error: "

// Is reports whether err, or an error it wraps, is go-zookeeper's report
// of the code.
func Is(err error, code int32) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if c, ok := codeOf(err.Error()); ok && c == code {
			return true
		}
	}
	return false
}

// codeOf reads the code from the text of an error go-zookeeper made for
// a code it does not know.
func codeOf(text string) (int32, bool) {
	i := strings.LastIndex(text, unknownPrefix)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(text[i+len(unknownPrefix):], 10, 32)
	return int32(n), err == nil
}

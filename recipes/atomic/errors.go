package atomic

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

// Errors of the atomic recipes; each can be tested with errors.Is.
var (
	// ErrCorrupt means the node holds fewer bytes than the number needs (8
	// for an Int64, 4 for an Int32): Curator's "Corrupted data" exception. A
	// node that is missing or empty reads as 0, and one that is longer is
	// read from its first bytes, as Curator reads them.
	ErrCorrupt = errors.New("corrupted data")
	// ErrInvalidArg reports bad input (a nil client, number or retry
	// policy, a bad path or lock path, a nil option, a cache factor below
	// 1), returned before any request is sent. It is
	// framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg
)

package atomic

import "errors"

// ErrCorrupt means the node holds fewer bytes than the number needs (8 for
// an Int64, 4 for an Int32): Curator's "Corrupted data" exception. A node
// that is missing or empty reads as 0, and one that is longer is read from
// its first bytes, as Curator reads them.
var ErrCorrupt = errors.New("corrupted data")

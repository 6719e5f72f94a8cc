package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The node format of a Queue (Curator's ItemSerializer): a 4-byte
// big-endian version, then per item an opcode byte, a 4-byte big-endian
// length and the item's bytes, then an end opcode. "item-0" alone is
// 00010001 01 00000006 6974656d2d30 02.
const (
	formatVersion = 0x00010001
	opItem        = 0x01
	opEOF         = 0x02
)

// errCorrupt marks a node that is not in the format, or whose items the
// Serializer refused.
var errCorrupt = errors.New("corrupt item node")

// encodeItems returns the node data holding items, in order.
func encodeItems(items [][]byte) []byte {
	n := 5
	for _, it := range items {
		n += 5 + len(it)
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint32(b, formatVersion)
	for _, it := range items {
		b = append(b, opItem)
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return append(b, opEOF)
}

// decodeItems returns the items a node's data holds. As Curator's reader,
// it stops at the end opcode and ignores what follows it.
func decodeItems(b []byte) ([][]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, too short for the version", errCorrupt, len(b))
	}
	if v := binary.BigEndian.Uint32(b); v != formatVersion {
		return nil, fmt.Errorf("%w: version %#08x, want %#08x", errCorrupt, v, formatVersion)
	}
	b = b[4:]
	var items [][]byte
	for {
		if len(b) == 0 {
			return nil, fmt.Errorf("%w: no end opcode", errCorrupt)
		}
		op := b[0]
		b = b[1:]
		switch {
		case op == opEOF:
			return items, nil
		case op != opItem:
			return nil, fmt.Errorf("%w: opcode %d", errCorrupt, op)
		case len(b) < 4:
			return nil, fmt.Errorf("%w: item %d's length cut short", errCorrupt, len(items))
		}
		size := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if size < 0 || int64(size) > int64(len(b)) {
			return nil, fmt.Errorf("%w: item %d of %d bytes, %d left", errCorrupt, len(items), size, len(b))
		}
		items = append(items, b[:size:size])
		b = b[size:]
	}
}

package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ZooKeeper's transaction types (its OpCode class) that the checker reads.
const (
	txnError           int32 = -1
	txnCreate          int32 = 1
	txnDelete          int32 = 2
	txnSetData         int32 = 5
	txnCheck           int32 = 13
	txnMulti           int32 = 14
	txnCreate2         int32 = 15
	txnCreateContainer int32 = 19
	txnDeleteContainer int32 = 20
	txnCreateTTL       int32 = 21
	txnCreateSession   int32 = -10
	txnCloseSession    int32 = -11
)

// txnLogMagic opens every transaction log file: "ZKLG".
const txnLogMagic = 0x5a4b4c47

// txn is one entry of a server's transaction log: a header and, for the
// types the checker follows, what it did. A multi lists its operations in
// ops; a failed multi's operations are all txnError.
type txn struct {
	Session int64 // the header's clientId: the session that asked
	Zxid    int64
	Time    int64 // the leader's clock, ms since the epoch
	Type    int32
	ops     []txnOp
	raw     []byte // the entry as logged, digest included: servers that agree log the same bytes
}

// txnOp is one change of a transaction: a create, delete or set of path.
// A closeSession is one op of type txnCloseSession (no path).
type txnOp struct {
	Type      int32
	Path      string
	Data      []byte
	Ephemeral bool
}

// readTxnLogs reads every log.* file in dir (a server's data directory's
// version-2) in zxid order.
func readTxnLogs(dataDir string) ([]txn, error) {
	files, err := filepath.Glob(filepath.Join(dataDir, "version-2", "log.*"))
	if err != nil {
		return nil, err
	}
	// log.<hex zxid of its first entry>: sort by that number.
	slices.SortFunc(files, func(a, b string) int {
		za, _ := strconv.ParseInt(strings.TrimPrefix(filepath.Ext(a), "."), 16, 64)
		zb, _ := strconv.ParseInt(strings.TrimPrefix(filepath.Ext(b), "."), 16, 64)
		return int(min(max(za-zb, -1), 1))
	})
	var all []txn
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		txns, err := parseTxnLog(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, txns...)
	}
	return all, nil
}

// parseTxnLog parses one transaction log file: a header (magic, version,
// dbid), then entries of crc (Adler-32 of the entry, as a long), length,
// entry, and the byte 'B'. The file is preallocated with zeros; the log
// ends at the first zero length, and at an entry cut short or failing its
// checksum (a server killed mid-write).
func parseTxnLog(b []byte) ([]txn, error) {
	r := bytes.NewReader(b)
	var hdr struct {
		Magic, Version int32
		DBID           int64
	}
	if err := binary.Read(r, binary.BigEndian, &hdr); err != nil {
		return nil, fmt.Errorf("transaction log header: %w", err)
	}
	if hdr.Magic != txnLogMagic {
		return nil, fmt.Errorf("not a transaction log (magic %#x)", hdr.Magic)
	}
	var out []txn
	for {
		var head struct {
			CRC int64
			Len int32
		}
		if err := binary.Read(r, binary.BigEndian, &head); err != nil || head.Len <= 0 || int(head.Len) > r.Len()-1 {
			return out, nil
		}
		entry := make([]byte, head.Len)
		if _, err := io.ReadFull(r, entry); err != nil {
			return out, nil
		}
		if eor, err := r.ReadByte(); err != nil || eor != 'B' || int64(adler32.Checksum(entry)) != head.CRC {
			return out, nil
		}
		t, err := parseTxn(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", len(out), err)
		}
		out = append(out, t)
	}
}

// parseTxn parses one entry: TxnHeader (clientId, cxid, zxid, time, type),
// then the record of its type, then (ZooKeeper 3.6+) a digest, ignored.
func parseTxn(entry []byte) (txn, error) {
	d := &jute{b: entry}
	t := txn{Session: d.long()}
	d.int() // cxid
	t.Zxid, t.Time, t.Type = d.long(), d.long(), d.int()
	if t.Type == txnMulti {
		n := d.int()
		for range max(n, 0) {
			typ := d.int()
			op := parseRecord(typ, &jute{b: d.buffer()})
			t.ops = append(t.ops, op)
		}
	} else if op := parseRecord(t.Type, d); op.Type != 0 {
		t.ops = append(t.ops, op)
	}
	if d.err != nil {
		return txn{}, fmt.Errorf("zxid %#x type %d: %w", t.Zxid, t.Type, d.err)
	}
	t.raw = entry
	return t, nil
}

// parseRecord reads the record of a transaction of type typ; types the
// checker does not follow give an op of type 0.
func parseRecord(typ int32, d *jute) txnOp {
	switch typ {
	case txnCreate, txnCreate2, txnCreateContainer, txnCreateTTL:
		// CreateTxn: path, data, acl, ephemeral, parentCVersion;
		// CreateContainerTxn and CreateTTLTxn have no ephemeral flag.
		op := txnOp{Type: txnCreate, Path: d.str(), Data: d.buffer()}
		for range max(d.int(), 0) { // ACL: perms, scheme, id
			d.int()
			d.str()
			d.str()
		}
		if typ == txnCreate || typ == txnCreate2 {
			op.Ephemeral = d.bool()
		}
		d.int() // parentCVersion
		if typ == txnCreateTTL {
			d.long()
		}
		return op
	case txnDelete, txnDeleteContainer:
		return txnOp{Type: txnDelete, Path: d.str()}
	case txnSetData:
		op := txnOp{Type: txnSetData, Path: d.str(), Data: d.buffer()}
		d.int()
		return op
	case txnCheck:
		op := txnOp{Type: txnCheck, Path: d.str()}
		d.int()
		return op
	case txnError:
		d.int()
		return txnOp{Type: txnError}
	case txnCloseSession:
		// CloseSessionTxn lists the ephemerals to delete; the replay
		// finds them from their creates instead.
		return txnOp{Type: txnCloseSession}
	case txnCreateSession:
		d.int() // timeout
		return txnOp{Type: txnCreateSession}
	}
	return txnOp{}
}

// jute reads ZooKeeper's Jute serialization: big-endian numbers, strings
// and buffers as an int length (-1: null) and bytes. The first error
// sticks; reads after it return zero values.
type jute struct {
	b   []byte
	off int
	err error
}

func (d *jute) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || d.off+n > len(d.b) {
		d.err = errors.New("record cut short")
		return nil
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s
}

func (d *jute) int() int32 {
	s := d.take(4)
	if s == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s))
}

func (d *jute) long() int64 {
	s := d.take(8)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

func (d *jute) bool() bool {
	s := d.take(1)
	return s != nil && s[0] != 0
}

func (d *jute) buffer() []byte {
	n := d.int()
	if n < 0 {
		return nil
	}
	return slices.Clone(d.take(int(n)))
}

func (d *jute) str() string { return string(d.buffer()) }

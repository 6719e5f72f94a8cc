package zkwire

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// multiReply builds a multiRead reply frame as ZooKeeper's MultiResponse
// writes it: per result a header (type, done, err) and its body, then the
// closing header.
func multiReply(results []ReadResult) []byte {
	p := reply(7, 0)
	for _, r := range results {
		typ := r.Op
		if r.Code != 0 {
			typ = opError
		}
		p = binary.BigEndian.AppendUint32(p, uint32(typ))
		p = append(p, 0)
		p = binary.BigEndian.AppendUint32(p, uint32(r.Code))
		switch {
		case r.Code != 0:
			p = binary.BigEndian.AppendUint32(p, uint32(r.Code))
		case r.Op == OpGetData:
			p = binary.BigEndian.AppendUint32(p, uint32(len(r.Data)))
			p = append(p, r.Data...)
			s := r.Stat
			for _, v := range []int64{s.Czxid, s.Mzxid, s.Ctime, s.Mtime} {
				p = binary.BigEndian.AppendUint64(p, uint64(v))
			}
			for _, v := range []int32{s.Version, s.Cversion, s.Aversion} {
				p = binary.BigEndian.AppendUint32(p, uint32(v))
			}
			p = binary.BigEndian.AppendUint64(p, uint64(s.EphemeralOwner))
			p = binary.BigEndian.AppendUint32(p, uint32(s.DataLength))
			p = binary.BigEndian.AppendUint32(p, uint32(s.NumChildren))
			p = binary.BigEndian.AppendUint64(p, uint64(s.Pzxid))
		default:
			p = binary.BigEndian.AppendUint32(p, uint32(len(r.Children)))
			for _, c := range r.Children {
				p = binary.BigEndian.AppendUint32(p, uint32(len(c)))
				p = append(p, c...)
			}
		}
	}
	p = binary.BigEndian.AppendUint32(p, 0xFFFFFFFF)
	p = append(p, 1)
	p = binary.BigEndian.AppendUint32(p, 0xFFFFFFFF)
	return prefixed(p)
}

func TestMultiReadRequest(t *testing.T) {
	got := MultiReadRequest(5, []ReadOp{{OpGetData, "/a"}, {OpGetChildren, "/bc"}})
	want := prefixed([]byte{
		0, 0, 0, 5, 0, 0, 0, 22, // xid, multiRead
		0, 0, 0, 4, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 2, '/', 'a', 0, // getData /a, no watch
		0, 0, 0, 8, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, '/', 'b', 'c', 0, // getChildren /bc
		0xFF, 0xFF, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF, 0xFF, // done
	})
	if !bytes.Equal(got, want) {
		t.Fatalf("MultiReadRequest:\n got %x\nwant %x", got, want)
	}
}

func TestParseMultiReadReply(t *testing.T) {
	want := []ReadResult{
		{Op: OpGetData, Data: []byte("xyz"), Stat: Stat{Czxid: 1, Mzxid: 2, Ctime: 3, Mtime: 4, Version: 5, Cversion: 6, Aversion: 7, EphemeralOwner: 8, DataLength: 3, NumChildren: 10, Pzxid: 11}},
		{Code: -101},
		{Op: OpGetChildren, Children: []string{"a", "bb"}},
		{Op: OpGetData, Data: []byte{}},
	}
	frame := multiReply(want)
	got, err := ParseMultiReadReply(frame, len(want))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Code != w.Code || g.Code == 0 && g.Op != w.Op || !bytes.Equal(g.Data, w.Data) || g.Stat != w.Stat || !slices.Equal(g.Children, w.Children) {
			t.Errorf("result %d: %+v, want %+v", i, g, w)
		}
	}
	frame[30] = 'Q' // the data's first byte: the results hold none of the frame
	if string(got[0].Data) != "xyz" {
		t.Errorf("a result's data changed with the frame: %q", got[0].Data)
	}
	for _, n := range []int{3, 5} {
		if _, err := ParseMultiReadReply(frame, n); err == nil {
			t.Errorf("a reply of 4 results read as %d", n)
		}
	}
	for cut := 20; cut < len(frame)-1; cut += 7 {
		if _, err := ParseMultiReadReply(frame[:cut], len(want)); err == nil {
			t.Errorf("a reply cut at %d of %d bytes parsed", cut, len(frame))
		}
	}
}

// FuzzParseMultiReadReply: any bytes parse or fail, without a panic, and a
// result count other than asked for is an error.
func FuzzParseMultiReadReply(f *testing.F) {
	f.Add(multiReply([]ReadResult{{Op: OpGetData, Data: []byte("a")}, {Code: -101}}), 2)
	f.Add(multiReply([]ReadResult{{Op: OpGetChildren, Children: []string{"x"}}}), 1)
	f.Add(multiReply(nil), 0)
	f.Fuzz(func(t *testing.T, frame []byte, n int) {
		if n < 0 || n > 1<<10 {
			return
		}
		res, err := ParseMultiReadReply(frame, n)
		if err == nil && len(res) != n {
			t.Fatalf("%d results for %d reads", len(res), n)
		}
	})
}

package zkwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// request builds a request frame: length, xid, opcode, then for a multi its
// first op's header, then a path and the rest.
func request(xid, op int32, path string) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	if op == OpMulti {
		b = append(b, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = append(b, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func TestCreatedPath(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
		ok    bool
	}{
		{"create", request(3, OpCreate, "/a/b"), "/a/b", true},
		{"create2", request(3, OpCreate2, "/a"), "/a", true},
		{"container", request(3, OpCreateContainer, "/c"), "/c", true},
		{"ttl", request(3, OpCreateTTL, "/t"), "/t", true},
		{"multi", request(3, OpMulti, "/m"), "/m", true},
		{"delete", request(3, OpDelete, "/a"), "", false},
		{"ping", request(-2, OpCreate, "/a"), "", false},
		{"handshake-sized", make([]byte, 8), "", false},
		{"truncated path", request(3, OpCreate, "/abcdef")[:18], "", false},
		{"negative length", append(request(3, OpCreate, "")[:12], 0xff, 0xff, 0xff, 0xff), "", false},
	} {
		got, ok := CreatedPath(tc.frame)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%s: CreatedPath = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReadFrameAndSplitter(t *testing.T) {
	frames := [][]byte{request(0, 0, "handshake"), request(1, OpCreate, "/a"), request(2, OpDelete, "/b")}
	stream := bytes.Join(frames, nil)
	r := bytes.NewReader(stream)
	for i, want := range frames {
		got, err := ReadFrame(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("frame %d: %x, %v", i, got, err)
		}
	}
	var payloads [][]byte
	s := Splitter{OnFrame: func(p []byte) { payloads = append(payloads, slices.Clone(p)) }}
	for _, c := range stream { // one byte at a time
		s.Feed([]byte{c})
	}
	if len(payloads) != 2 || !bytes.Equal(payloads[0], frames[1][4:]) || !bytes.Equal(payloads[1], frames[2][4:]) {
		t.Fatalf("splitter gave %x", payloads)
	}
	huge := binary.BigEndian.AppendUint32(nil, MaxFrame+1)
	if _, err := ReadFrame(bytes.NewReader(huge)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("ReadFrame of a huge length: %v", err)
	}
	s.Feed(huge)
	s.Feed(request(9, OpCreate, "/after"))
	if len(payloads) != 2 {
		t.Fatal("splitter went on after a length above MaxFrame")
	}
}

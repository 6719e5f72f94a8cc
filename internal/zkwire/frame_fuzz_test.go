package zkwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"
)

// FuzzReadFrameWhole: ReadFrame (the proxy's) returns a complete frame,
// prefix included, refuses one over MaxFrame before reading it, and fails
// on a truncated one, without panicking.
func FuzzReadFrameWhole(f *testing.F) {
	f.Add(prefixed([]byte("request")))
	f.Add(prefixed(nil))
	f.Add(prefixed([]byte("request"))[:7])
	f.Add([]byte{0, 1})
	f.Add([]byte{0x04, 0, 0, 0})    // 64 MiB, not there
	f.Add([]byte{0x04, 0, 0, 1, 0}) // just over 64 MiB
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		got, err := ReadFrame(r)
		if len(data) < 4 {
			if err == nil {
				t.Fatalf("readFrame(%x) = %x, want an error", data, got)
			}
			return
		}
		size := int64(binary.BigEndian.Uint32(data))
		switch {
		case size > MaxFrame:
			if err == nil || r.Len() != len(data)-4 {
				t.Fatalf("frame of %d bytes: %v, read %d bytes; want an error before the payload", size, err, len(data)-r.Len())
			}
		case int64(len(data)) < 4+size:
			if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				t.Fatalf("truncated frame of %d bytes: %v", size, err)
			}
		default:
			if err != nil || !bytes.Equal(got, data[:4+size]) {
				t.Fatalf("readFrame(%x) = %x, %v; want %x", data, got, err, data[:4+size])
			}
		}
	})
}

// splitFrames is the reference: the payloads of the complete frames at the
// start of stream, and what is left over (nothing once a length is above
// MaxFrame: the splitter stops there).
func splitFrames(stream []byte) (payloads [][]byte, rest []byte) {
	for len(stream) >= 4 {
		n := int64(binary.BigEndian.Uint32(stream))
		if n > MaxFrame {
			return payloads, nil
		}
		if int64(len(stream)-4) < n {
			break
		}
		payloads = append(payloads, stream[4:4+n])
		stream = stream[4+n:]
	}
	return payloads, stream
}

// FuzzSplitter: however a byte stream is cut into writes, the Splitter (the
// wire counter's) hands on the same payloads, every complete frame's but the
// first (the session handshake), in order, and keeps only the incomplete
// rest.
func FuzzSplitter(f *testing.F) {
	hs := prefixed(bytes.Repeat([]byte{1}, 36))
	req := prefixed([]byte{0, 0, 0, 7, 0, 0, 0, 4, 0, 0, 0, 1, '/'})
	ping := prefixed([]byte{0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 11})
	f.Add(slices.Concat(hs, req, ping, req), []byte{0})
	f.Add(slices.Concat(hs, req, ping, req), []byte{2, 0, 30})
	f.Add(slices.Concat(hs, req[:5]), []byte{})
	f.Add(slices.Concat(hs, prefixed(nil), prefixed(nil)), []byte{1})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, []byte{0})
	f.Fuzz(func(t *testing.T, stream, cuts []byte) {
		var got [][]byte
		fs := Splitter{OnFrame: func(p []byte) { got = append(got, slices.Clone(p)) }}
		for i, rest := 0, stream; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])+1)
			}
			fs.Feed(rest[:n])
			rest = rest[n:]
		}
		want, left := splitFrames(stream)
		if len(want) > 0 {
			want = want[1:]
		}
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("frames %x, want %x", got, want)
		}
		if !bytes.Equal(fs.buf, left) && len(fs.buf)+len(left) > 0 {
			t.Fatalf("kept %x, want %x", fs.buf, left)
		}
	})
}

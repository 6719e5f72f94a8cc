package recipestest

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// Namespace returns a fresh namespace (no leading slash) for one test, so
// that the tests of a package can share one server without seeing each
// other's nodes: "t-<test name>-<random>".
func Namespace(tb testing.TB) string {
	var b strings.Builder
	b.WriteString("t-")
	for _, r := range tb.Name() {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() > 60 {
			break
		}
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(suffix[:]))
	return b.String()
}

package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/gocurator/curator/internal/zkconn"
)

// ProtectedPrefix starts the name of every protected node: _c_<uuid>-<name>.
const ProtectedPrefix = "_c_"

// newProtectedID returns a random (version 4) UUID as Java's UUID.toString
// writes it: 36 lowercase characters with dashes.
func newProtectedID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// ProtectedPath returns path with its node name prefixed by _c_<id>-, as
// Curator's ProtectedUtils.toProtectedZNodePath does.
func ProtectedPath(path, id string) string {
	parent, name := SplitPath(path)
	return JoinPath(parent, ProtectedPrefix+id+"-"+name)
}

// IsProtected reports whether a node name carries a protected prefix:
// _c_, a UUID in its canonical text form (hex digits of either case in
// groups of 8-4-4-4-12), a dash, then at least one more character. Curator
// asks the same, except that Java's UUID parser also takes spellings of a
// UUID that no client writes (uneven groups, signs, non-ASCII digits).
func IsProtected(name string) bool {
	const n = len(ProtectedPrefix)
	return len(name) > n+37 && strings.HasPrefix(name, ProtectedPrefix) &&
		isUUID(name[n:n+36]) && name[n+36] == '-'
}

// isUUID reports whether s is a UUID as Java's UUID.toString writes it,
// in either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// ProtectedID returns the id of a protected node name, "" if it has none.
func ProtectedID(name string) string {
	if !IsProtected(name) {
		return ""
	}
	return name[len(ProtectedPrefix) : len(ProtectedPrefix)+36]
}

// StripProtectedPrefix returns a node name without its protected prefix.
func StripProtectedPrefix(name string) string {
	if !IsProtected(name) {
		return name
	}
	return name[len(ProtectedPrefix)+37:]
}

// findProtected looks among parent's children for the node a protected create
// with id made. It syncs first, so that the server it asks has applied the
// expiry of an earlier session of ours and the removal of that session's
// ephemeral nodes. An ephemeral match that another session owns is not ours:
// it is neither returned nor deleted (deleting it by path could delete the
// node a retry is about to make under the same name).
func (c *Client) findProtected(ctx context.Context, conn conn, parent, id string, mode CreateMode) (string, error) {
	err := conn.Sync(ctx, parent)
	var children []string
	if err == nil {
		children, _, _, err = conn.Children(ctx, parent, zkconn.NoWatch)
	}
	if errors.Is(err, ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	prefix := ProtectedPrefix + id + "-"
	for _, child := range children {
		if !strings.HasPrefix(child, prefix) {
			continue
		}
		found := JoinPath(parent, child)
		if !mode.IsEphemeral() {
			return found, nil
		}
		ok, stat, _, err := conn.Exists(ctx, found, zkconn.NoWatch)
		if err != nil {
			return "", err
		}
		if !ok { // gone since the listing
			continue
		}
		if sid := conn.SessionID(); sid != 0 && stat.EphemeralOwner == sid {
			return found, nil
		}
		c.log.Warn("protected node owned by another session; leaving it", "path", found, "owner", fmt.Sprintf("%#x", stat.EphemeralOwner))
	}
	return "", nil
}

// deleteProtected finds the node a protected create with id and mode made
// under parent, if any (an ephemeral one only if this session owns it), and
// deletes it.
func (c *Client) deleteProtected(ctx context.Context, parent, id string, mode CreateMode) error {
	var found string
	err := c.retrying(ctx, "delete", parent, func(ctx context.Context, conn conn) error {
		var err error
		found, err = c.findProtected(ctx, conn, parent, id, mode)
		return err
	})
	if err != nil || found == "" {
		return err
	}
	return c.deleteRaw(ctx, found, -1)
}

package harness

import (
	"context"
)

// countChildren counts a lock directory's nodes through a session.
func countChildren(s session, path string) int {
	switch s := s.(type) {
	case *goSession:
		kids, _, _ := s.c.Children(context.Background(), path)
		return len(kids)
	case *zkSession:
		kids, _, _ := s.conn.Children(path)
		return len(kids)
	}
	return 0
}

package main

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// fourLetter sends a four-letter-word command.
func fourLetter(ctx context.Context, addr, cmd string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

func parseReceived(srvr string) int64 {
	for _, line := range strings.Split(srvr, "\n") {
		if v, ok := strings.CutPrefix(line, "Received: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

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

package zkconn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// hostLookupTimeout bounds the name lookups at Start, as go-zookeeper bounds
// its own.
const hostLookupTimeout = 3 * time.Second

// hostNames is a go-zookeeper HostProvider that works as its default one
// (each host of the connect string is looked up once, when the client
// starts; every address found is a server of its own; the order is
// shuffled) and also remembers which host each address came from. The
// dialer is handed addresses only, and a TLS client verifies a server's
// certificate against the host the user named. A TLS client uses it.
type hostNames struct {
	mu      sync.Mutex
	servers []string
	names   map[string]string // address -> host as the connect string has it
	curr    int
	last    int
}

// Init looks up every host of servers ("host:port").
func (h *hostNames) Init(servers []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), hostLookupTimeout)
	defer cancel()
	var found []string
	names := make(map[string]string)
	for _, s := range servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return err
		}
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil {
			return err
		}
		for _, a := range addrs {
			addr := net.JoinHostPort(a, port)
			if _, dup := names[addr]; !dup {
				found = append(found, addr)
			}
			names[addr] = host
		}
	}
	if len(found) == 0 {
		return fmt.Errorf("no addresses found for %q", servers)
	}
	rand.Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers, h.names, h.curr, h.last = found, names, -1, -1
	return nil
}

// Len returns the number of addresses.
func (h *hostNames) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next returns the next address to try; retryStart is true once every
// address has been tried since the last connection.
func (h *hostNames) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	retryStart = h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retryStart
}

// Connected notes that the current address gave a connection.
func (h *hostNames) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}

// Name returns the host addr came from, or addr's own host if it came from
// none (h is nil without TLS).
func (h *hostNames) Name(addr string) string {
	if h != nil {
		h.mu.Lock()
		name, ok := h.names[addr]
		h.mu.Unlock()
		if ok {
			return name
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

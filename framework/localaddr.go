package framework

import "net"

// localAddress returns the host's first non-loopback IPv4 address as text,
// as Curator's default node data is InetAddress.getLocalHost's address;
// "127.0.0.1" when there is none.
func localAddress() []byte {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				return []byte(n.IP.String())
			}
		}
	}
	return []byte("127.0.0.1")
}

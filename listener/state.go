package listener

// ConnectionState is a change in a Client's connection to ZooKeeper, as
// Curator's ConnectionState reports it.
type ConnectionState int

// The connection states, in Curator's terms.
const (
	// Connected is reported once, when the first session is established.
	Connected ConnectionState = iota + 1
	// Suspended means the connection dropped; the session may still be alive.
	// Operations block or fail until the state changes again.
	Suspended
	// Reconnected means the connection is back: on the same session after
	// Suspended, or on a new session after Lost.
	Reconnected
	// Lost means the session is gone: the server expired it, it was replaced,
	// or the connection has been Suspended for the negotiated session timeout.
	// Ephemeral nodes of that session must be presumed deleted.
	Lost
	// ReadOnly means the client is connected to a read-only server.
	ReadOnly
)

// String returns the state's name in upper case, as Curator prints it.
func (s ConnectionState) String() string {
	switch s {
	case Connected:
		return "CONNECTED"
	case Suspended:
		return "SUSPENDED"
	case Reconnected:
		return "RECONNECTED"
	case Lost:
		return "LOST"
	case ReadOnly:
		return "READ_ONLY"
	}
	return "UNKNOWN"
}

// IsConnected reports whether the state means a usable connection.
func (s ConnectionState) IsConnected() bool {
	return s == Connected || s == Reconnected || s == ReadOnly
}

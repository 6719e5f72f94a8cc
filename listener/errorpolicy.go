package listener

// ErrorPolicy says which connection states a recipe must treat as an error:
// a lock holder, for one, gives up its lock when its client enters such a state.
type ErrorPolicy interface {
	// IsErrorState reports whether entering s means a hold is lost.
	IsErrorState(s ConnectionState) bool
}

// StandardErrorPolicy treats Suspended and Lost as errors. It is Curator's
// default and the safe choice: a holder stops trusting its lock as soon as it
// can no longer reach ZooKeeper.
type StandardErrorPolicy struct{}

// IsErrorState reports whether s is Suspended or Lost.
func (StandardErrorPolicy) IsErrorState(s ConnectionState) bool {
	return s == Suspended || s == Lost
}

// SessionErrorPolicy treats only Lost as an error. A holder keeps its lock
// through a Suspended connection, betting that the session survives.
type SessionErrorPolicy struct{}

// IsErrorState reports whether s is Lost.
func (SessionErrorPolicy) IsErrorState(s ConnectionState) bool {
	return s == Lost
}

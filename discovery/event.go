package discovery

// EventType says what a cache Event reports.
type EventType int

const (
	// Added: an instance was registered.
	Added EventType = iota + 1
	// Updated: an instance's content changed.
	Updated
	// Removed: an instance was unregistered, or went with its session.
	Removed
)

// String returns the type's name.
func (t EventType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Removed:
		return "Removed"
	}
	return "EventType(?)"
}

// Event is a change of a Cache's instances. Instance is the instance
// after the change (before it, for Removed).
type Event[T any] struct {
	Type     EventType
	Instance Instance[T]
}

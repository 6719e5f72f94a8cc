package leader

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// CloseMode says whether closing a Latch that leads tells its listeners
// that the leadership ended (Curator's LeaderLatch.CloseMode).
type CloseMode int

const (
	// Silent closes without telling listeners (Curator's default).
	Silent CloseMode = iota
	// NotifyLeader tells listeners that the leadership ended.
	NotifyLeader
)

// Option configures a Latch or a Selector.
type Option func(*options)

type options struct {
	id          string
	closeMode   CloseMode
	modeSet     bool                     // WithCloseMode was given: a Latch's option
	autoRequeue bool                     // a Selector's option
	onError     func(*Leadership, error) // a Selector's option
	grace       time.Duration
	label       string
}

// WithID sets the participant's id, the data of its node, which every
// participant (Java ones too) reads as the id of a Participant. It must be
// valid UTF-8: Curator reads it as UTF-8. Without it, a Latch's id is
// empty and a Selector's node carries the client's default data (the local
// IP address), as Curator's do.
func WithID(id string) Option { return func(o *options) { o.id = id } }

// WithCloseMode sets what a Latch's Close tells its listeners (default
// Silent). It is a Latch's option only: NewSelector refuses it.
func WithCloseMode(m CloseMode) Option {
	return func(o *options) { o.closeMode, o.modeSet = m, true }
}

// WithAutoRequeue makes a Selector join the election again each time its
// leadership function returns (Curator's autoRequeue). It is a Selector's
// option only: NewLatch refuses it (a latch stays in the election anyway).
func WithAutoRequeue() Option { return func(o *options) { o.autoRequeue = true } }

// WithErrorHandler has a Selector call handle with every error its
// leadership function returns (Curator surfaces a takeLeadership failure;
// a Go function returns it), and the term that function ran. handle runs
// on the selector's goroutine once the term's node is deleted, so it never
// delays the next leader, one call at a time and in order; Close waits for
// a call under way (a Close from handle itself returns without waiting). It is not called for an
// error that only reports the term's end: one that wraps context.Canceled
// or the term's Err, returned after the term ended. It is a Selector's
// option only: NewLatch refuses it.
func WithErrorHandler(handle func(term *Leadership, err error)) Option {
	return func(o *options) { o.onError = handle }
}

// WithLabel names the election for the client's hooks (framework.WithHooks):
// the terms' starts and ends carry the label, which metrics may use where a
// path, whose number has no bound, may not.
func WithLabel(label string) Option { return func(o *options) { o.label = label } }

// WithGrace sets how long, at most, the participant keeps an ended term's
// node in the election while the term's code still runs (DefaultGrace):
// a Latch's listeners still in a call for the term (its end included),
// and Retains not released. Once they have let go the node is deleted at
// once; if the grace runs out first, it is deleted anyway and the client's
// logger says so, and another participant may lead while that code runs.
// 0 does not wait. A Selector waits for its function however long it
// takes (Close says so), and the grace for its Retains.
func WithGrace(d time.Duration) Option { return func(o *options) { o.grace = d } }

// applyOptions returns the options opts set, for a Latch (latch true) or
// a Selector.
func applyOptions(opts []Option, latch bool) (options, error) {
	o := options{grace: DefaultGrace}
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", ErrInvalidArg)
		}
		opt(&o)
	}
	switch {
	case o.grace < 0:
		return o, fmt.Errorf("%w: grace %v", ErrInvalidArg, o.grace)
	case !utf8.ValidString(o.id):
		return o, fmt.Errorf("%w: participant id %q is not valid UTF-8", ErrInvalidArg, o.id)
	case o.closeMode != Silent && o.closeMode != NotifyLeader:
		return o, fmt.Errorf("%w: close mode %d", ErrInvalidArg, o.closeMode)
	case latch && o.autoRequeue:
		return o, fmt.Errorf("%w: WithAutoRequeue is a Selector's option", ErrInvalidArg)
	case latch && o.onError != nil:
		return o, fmt.Errorf("%w: WithErrorHandler is a Selector's option", ErrInvalidArg)
	case !latch && o.modeSet:
		return o, fmt.Errorf("%w: WithCloseMode is a Latch's option", ErrInvalidArg)
	}
	return o, nil
}

// String returns the mode's name.
func (m CloseMode) String() string {
	switch m {
	case Silent:
		return "Silent"
	case NotifyLeader:
		return "NotifyLeader"
	}
	return fmt.Sprintf("CloseMode(%d)", int(m))
}

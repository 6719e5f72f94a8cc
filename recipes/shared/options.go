package shared

import (
	"fmt"

	"github.com/gocurator/curator/framework"
)

// An Option configures a Value or a Count.
type Option func(*options)

type options struct {
	label string // WithLabel's
}

// WithLabel names the value for the client's hooks (framework.WithHooks):
// its compare-and-sets carry the label, which metrics may use where a
// path, whose number has no bound, may not.
func WithLabel(label string) Option {
	return func(o *options) { o.label = label }
}

// applyOptions returns the options opts set, or an error wrapping
// framework.ErrInvalidArg for a nil one.
func applyOptions(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", framework.ErrInvalidArg)
		}
		opt(&o)
	}
	return o, nil
}

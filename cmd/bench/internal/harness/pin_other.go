//go:build !linux

package harness

import "errors"

// pinClient is Linux's alone: elsewhere --pin is refused.
func pinClient() ([]int, error) {
	return nil, errors.New("only on Linux")
}

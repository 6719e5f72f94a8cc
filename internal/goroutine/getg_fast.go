//go:build gc && (amd64 || arm64)

package goroutine

import "unsafe"

// getg returns the calling goroutine's record, the runtime's g (in
// getg_amd64.s and getg_arm64.s).
func getg() unsafe.Pointer

//go:build !linux

package main

// protectProcess does nothing off Linux: see docs/cli.md for what another
// process of the same user can read there.
func protectProcess() {}

//go:build unix

package main

import (
	"os"
	"syscall"
)

// forwarded returns the signals gocurator passes on to the command's
// process group while the command runs. Before it runs, the terminating
// ones make gocurator give up waiting.
func forwarded() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
}

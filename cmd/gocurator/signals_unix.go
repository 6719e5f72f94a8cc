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

// ignored returns the job-control signals gocurator ignores. Stopped by a
// terminal's Ctrl-Z, gocurator would send no pings: the server would
// expire its session and let another holder in while the command, in a
// process group of its own that the terminal does not stop, ran on.
func ignored() []os.Signal {
	return []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}
}

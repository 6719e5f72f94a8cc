package main

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSignals returns a channel of the forwarded signals, which no longer
// act on gocurator itself, ignores the job-control ones (see ignored), and
// returns a function that restores their defaults.
func catchSignals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, forwarded()...)
	ign := ignored()
	if len(ign) > 0 { // with none, Ignore and Reset would take every signal
		signal.Ignore(ign...)
	}
	return ch, func() {
		signal.Stop(ch)
		if len(ign) > 0 {
			signal.Reset(ign...)
		}
	}
}

// terminating reports whether sig asks gocurator to stop.
func terminating(sig os.Signal) bool {
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
		return true
	}
	return false
}

// signalStatus is the exit status of a process a signal ended: 128 plus
// its number.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128
}

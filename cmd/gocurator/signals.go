package main

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSignals returns a channel of the forwarded signals, which no longer
// act on gocurator itself, ignores the job-control ones (see ignored), and
// returns a function that restores their defaults. ignoring lists the
// signals it began to ignore: a command gocurator runs gets them back at
// their default action (supervise.Command.DefaultSignals), as the shell
// gocurator was started from would give them; one ignored already when
// gocurator started stays ignored for the command too.
func catchSignals() (sigs <-chan os.Signal, ignoring []syscall.Signal, restore func()) {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, forwarded()...)
	ign := ignored()
	for _, s := range ign {
		if s, ok := s.(syscall.Signal); ok && !signal.Ignored(s) {
			ignoring = append(ignoring, s)
		}
	}
	if len(ign) > 0 { // with none, Ignore and Reset would take every signal
		signal.Ignore(ign...)
	}
	return ch, ignoring, func() {
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

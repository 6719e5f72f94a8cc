package supervise

import (
	"errors"
	"os"
	"syscall"
)

// ErrUnsupported is Start's error on systems without process groups: it
// is errors.ErrUnsupported.
var ErrUnsupported = errors.ErrUnsupported

// Command is a command to run in a process group of its own.
type Command struct {
	// Path is the executable to run (see os/exec.LookPath).
	Path string
	// Args is the argument list, the command's name first.
	Args []string
	// Env is the command's environment, in os.Environ's form; nil means
	// the supervisor's own.
	Env []string
	// Stdin, Stdout and Stderr are the command's standard files; nil
	// means the supervisor's own.
	Stdin, Stdout, Stderr *os.File
	// DefaultSignals are signals the supervisor ignores that the command
	// starts with at their default action instead. An ignored signal stays
	// ignored across exec, so without this a command would inherit what
	// the supervisor ignores for itself (gocurator's job-control signals).
	// Signals not listed keep the disposition the command inherits.
	DefaultSignals []syscall.Signal
}

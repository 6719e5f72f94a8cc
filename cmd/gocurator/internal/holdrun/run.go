package holdrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/supervise"
)

// ErrNotFound and ErrCannotRun are Lookup's errors: no such command, or one
// that cannot be run (not executable, say); a shell exits 127 and 126 for
// them.
var (
	ErrNotFound  = errors.New("command not found")
	ErrCannotRun = errors.New("command cannot be run")
)

// Lookup finds argv's command in $PATH unless its name has a slash, as a
// shell would, but refuses one found through a relative $PATH entry ("."
// or an empty entry, the current directory), as os/exec does: whoever can
// write to the directory gocurator runs in would choose what runs under the
// lock. The error then wraps ErrCannotRun and exec.ErrDot; "./cmd" runs
// it. It returns the command ready to run with the supervisor's standard
// files and environment.
func Lookup(argv []string) (supervise.Command, error) {
	if len(argv) == 0 || argv[0] == "" {
		return supervise.Command{}, ErrNotFound
	}
	path, err := exec.LookPath(argv[0])
	switch {
	case errors.Is(err, exec.ErrDot):
		return supervise.Command{}, fmt.Errorf("%w: %s is in the current directory, found through a relative $PATH entry; run it as ./%s: %w",
			ErrCannotRun, argv[0], argv[0], exec.ErrDot)
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return supervise.Command{}, fmt.Errorf("%w: %s", ErrNotFound, argv[0])
	case err != nil:
		return supervise.Command{}, fmt.Errorf("%w: %w", ErrCannotRun, err)
	}
	return supervise.Command{Path: path, Args: argv}, nil
}

// Run runs cmd with h's variables in its environment until it exits or lost
// is closed; then the command's whole process group is stopped, with
// Grace(sessionTimeout()) between SIGTERM and SIGKILL (sessionTimeout is
// asked at that moment: the negotiated timeout). signals are passed on to
// the group. Run returns once no process of the group is left; the error
// is Start's.
//
// A hold already lost when Run is called runs nothing: the result says
// Lost, and no process was started.
func Run(cmd supervise.Command, h Hold, lost <-chan struct{}, sessionTimeout func() time.Duration, signals <-chan os.Signal) (supervise.Result, error) {
	select {
	case <-lost: // lost while the token was read, say: another may hold now
		return supervise.Result{Lost: true}, nil
	default:
	}
	cmd.Env = h.Env(os.Environ())
	return supervise.Run(cmd, supervise.Watch{
		Lost:    lost,
		Grace:   func() time.Duration { return Grace(sessionTimeout()) },
		Signals: signals,
	})
}

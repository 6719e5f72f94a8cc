package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/gocurator/curator/framework"
)

// newFlagSet returns a flag set that prints nothing: the subcommand
// prints its own help and one-line errors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parsed is a subcommand's command line.
type parsed struct {
	args    []string // the positional arguments before "--"
	command []string // the words after "--"
	dashes  bool     // there was a "--"
}

// parseArgs parses fs's flags, which may come before or after the
// positional arguments, up to the first "--"; what follows it is the
// command. The error is flag.ErrHelp for -h or --help.
func parseArgs(fs *flag.FlagSet, args []string) (parsed, error) {
	var p parsed
	if i := slices.Index(args, "--"); i >= 0 {
		args, p.command, p.dashes = args[:i], args[i+1:], true
	}
	for {
		if err := fs.Parse(args); err != nil {
			return p, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return p, nil
		}
		p.args = append(p.args, rest[0])
		args = rest[1:]
	}
}

// parseOrHelp parses args into fs; it prints help and returns exitOK for
// -h or --help, prints a one-line error and returns exitUsage for a bad
// flag, and returns -1 if the subcommand should go on.
func (a *app) parseOrHelp(cmd string, fs *flag.FlagSet, args []string) (parsed, int) {
	p, err := parseArgs(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		text, _ := helpText(cmd)
		io.WriteString(a.stdout, text)
		return p, exitOK
	case err != nil:
		a.usageError(cmd, err.Error())
		return p, exitUsage
	}
	return p, -1
}

// commandLineProblem checks the shape of a lock's or election's command
// line: one path, "--", a command.
func commandLineProblem(p parsed) string {
	switch {
	case len(p.args) == 0:
		return "no path given"
	case !p.dashes:
		return "missing -- before the command"
	case len(p.args) > 1:
		return fmt.Sprintf("want one path before --, got %q", p.args)
	case len(p.command) == 0:
		return "no command after --"
	}
	return pathProblem(p.args[0])
}

// pathProblem checks a lock's or an election's path.
func pathProblem(path string) string {
	if err := framework.ValidatePath(path, false); err != nil || path == "/" {
		return fmt.Sprintf("bad path %q: want an absolute path below / without empty, . or .. names", path)
	}
	return ""
}

// pathOnlyProblem checks a command line of one path and no command.
func pathOnlyProblem(p parsed) string {
	switch {
	case len(p.args) == 0:
		return "no path given"
	case len(p.args) > 1 || p.dashes:
		return fmt.Sprintf("want one path and nothing else, got %q", append(p.args, p.command...))
	}
	return pathProblem(p.args[0])
}

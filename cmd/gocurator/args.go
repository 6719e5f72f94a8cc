package main

import (
	"errors"
	"flag"
	"io"
	"slices"
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

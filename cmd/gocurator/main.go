// Command gocurator runs a program under a ZooKeeper lock, semaphore or
// leader election, from the shell, on Curator's wire format: a shell job
// and a Java service using Apache Curator can share one lock.
//
//	gocurator lock [flags] PATH -- COMMAND [ARG...]
//	gocurator elect [flags] PATH -- COMMAND [ARG...]
//	gocurator leader [flags] PATH
//	gocurator holders [flags] PATH
//	gocurator register [flags] BASEPATH NAME -- COMMAND [ARG...]
//	gocurator instances [flags] BASEPATH [NAME]
//
// See docs/cli.md, or gocurator help COMMAND.
package main

import (
	"io"
	"os"
)

func main() {
	protectProcess()
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, tty: isTerminal(os.Stderr)}
	os.Exit(a.run(os.Args[1:]))
}

// app is one run of the command line: where it reads and writes and what
// its environment says.
type app struct {
	stdin          io.Reader // read only for --digest-file -
	stdout, stderr io.Writer
	getenv         func(string) string
	tty            bool // stderr is a terminal: gocurator lock says what it waits for
}

// run runs the subcommand args name and returns the exit status.
func (a *app) run(args []string) int {
	if len(args) == 0 {
		a.usageError("", "no command given (want lock, elect, leader, holders, register or instances)")
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "lock":
		return a.lock(rest)
	case "elect":
		return a.elect(rest)
	case "leader":
		return a.leader(rest)
	case "holders":
		return a.holders(rest)
	case "register":
		return a.register(rest)
	case "instances":
		return a.instances(rest)
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			io.WriteString(a.stdout, overviewHelp)
			return exitOK
		}
		if text, ok := helpText(rest[0]); ok {
			io.WriteString(a.stdout, text)
			return exitOK
		}
		a.usageError("help", "no such command: "+rest[0])
		return exitUsage
	default:
		a.usageError("", "no such command: "+cmd+" (want lock, elect, leader, holders, register or instances)")
		return exitUsage
	}
}

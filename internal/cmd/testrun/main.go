// Command testrun runs go test and shows a person how it goes: each
// package's result as it finishes, with how many are done and for how
// long the run has gone; a line every so often while nothing finishes
// (what runs, for how long, or that it is still compiling); the output of
// every failed test as it fails; and a summary at the end with the counts
// and the time the run took. It exits with go test's status (1 if go test
// said 0 but a test failed). scripts/test runs it.
//
//	go run ./internal/cmd/testrun [-pkgs './...'] [-quiet 30s] [-log FILE] [-- GO TEST FLAGS]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with args; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pkgs := fs.String("pkgs", "./...", "the packages, as go test takes them (space-separated)")
	quiet := fs.Duration("quiet", 30*time.Second, "print a line about what runs after this long without one")
	goCmd := fs.String("go", "go", "the go command")
	logPath := fs.String("log", "", "keep go test's whole -json output in this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	patterns := strings.Fields(*pkgs)
	total, module := countPackages(*goCmd, patterns)

	var log io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintf(stderr, "testrun: %v\n", err)
			return 2
		}
		defer f.Close()
		log = f
	}

	cmd := exec.Command(*goCmd, append(append([]string{"test", "-json"}, fs.Args()...), patterns...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testrun: %v\n", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "testrun: %v\n", err)
		return 2
	}

	var mu sync.Mutex
	p := newProgress(stdout, total, module, time.Now)
	p.logPath = *logPath
	stop := make(chan struct{})
	ticked := make(chan struct{})
	go func() { // the ticks; run stops them before the summary
		defer close(ticked)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				mu.Lock()
				p.tick(*quiet)
				mu.Unlock()
			case <-stop:
				return
			}
		}
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20) // a test may print long lines
	for sc.Scan() {
		var e event
		line := sc.Bytes()
		log.Write(line)
		log.Write([]byte{'\n'})
		mu.Lock()
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &e) == nil {
			p.handle(e)
		} else {
			p.printf("%s\n", line) // not an event: the go command's own words
		}
		mu.Unlock()
	}
	readErr := sc.Err()
	if readErr != nil {
		io.Copy(io.Discard, out) // let go test finish writing
	}
	waitErr := cmd.Wait()
	close(stop)
	<-ticked

	status := 0
	if ee, ok := waitErr.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if waitErr != nil {
		fmt.Fprintf(stderr, "testrun: %v\n", waitErr)
		status = 2
	}
	if status == 0 && (p.failed > 0 || len(p.failedPkgs) > 0 || readErr != nil) {
		status = 1 // never a pass that the events contradict
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "testrun: reading go test's output: %v\n", readErr)
	}
	p.summary(status)
	return status
}

// countPackages returns how many packages patterns match, and the main
// module's path; 0 and "" if go list cannot tell (the run goes on, with
// less to say).
func countPackages(goCmd string, patterns []string) (int, string) {
	out, err := exec.Command(goCmd, append([]string{"list", "-f", "{{.ImportPath}}"}, patterns...)...).Output()
	if err != nil {
		return 0, ""
	}
	mod, _ := exec.Command(goCmd, "list", "-m").Output()
	return len(strings.Fields(string(out))), strings.TrimSpace(string(mod))
}

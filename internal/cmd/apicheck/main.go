// Command apicheck keeps the module's exported API from changing by
// accident. It lists every exported name of the public packages (all but
// commands and internal ones) with its type, a line each, sorted, as the Go
// project's api/*.txt files do, for Linux, macOS and Windows builds, and
// checks two things (scripts/test runs it):
//
//   - the list is api/current.txt, line for line: a change of the exported
//     API shows in a review as a change of that file;
//   - every name whose lines differ between api/released.txt (the API of the
//     last release) and the list is named in CHANGELOG.md's Unreleased
//     section, as "locks.ErrBusy", "Client.Start" or
//     "framework.Client.Start", or a package by its path.
//
// It reads no git history, so it works the same on a shallow clone in CI.
//
//	go run ./internal/cmd/apicheck            check
//	go run ./internal/cmd/apicheck -update    rewrite api/current.txt
//	go run ./internal/cmd/apicheck -release   at a release: api/current.txt becomes api/released.txt
//
// Exit status: 0 if both hold, 1 if not, 2 if it could not tell.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The files, relative to the module's root.
const (
	currentFile  = "api/current.txt"
	releasedFile = "api/released.txt"
	changelog    = "CHANGELOG.md"
	updateCmd    = "go run ./internal/cmd/apicheck -update"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with args; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "the module's root")
	update := fs.Bool("update", false, "rewrite "+currentFile+" from the packages")
	release := fs.Bool("release", false, "copy "+currentFile+" to "+releasedFile+" (at a release)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "apicheck: %v\n", err)
		return 2
	}
	if *release {
		lines, err := readAPI(filepath.Join(*dir, currentFile), updateCmd)
		if err != nil {
			return fail(err)
		}
		if err := writeAPI(filepath.Join(*dir, releasedFile), releasedHeader, lines); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "apicheck: wrote %s (%d lines)\n", releasedFile, len(lines))
		return 0
	}
	got, err := dumpAll(*dir)
	if err != nil {
		return fail(err)
	}
	if *update {
		if err := writeAPI(filepath.Join(*dir, currentFile), currentHeader, got); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "apicheck: wrote %s (%d lines)\n", currentFile, len(got))
		return 0
	}
	ok, err := check(*dir, got, stderr)
	if err != nil {
		return fail(err)
	}
	if !ok {
		return 1
	}
	fmt.Fprintf(stdout, "apicheck: the exported API (%d lines) is %s, and %s names its changes since the last release\n", len(got), currentFile, changelog)
	return 0
}

// check compares got with the files in dir, printing what is wrong to w.
func check(dir string, got []string, w io.Writer) (bool, error) {
	ok := true
	want, err := readAPI(filepath.Join(dir, currentFile), updateCmd)
	if err != nil {
		return false, err
	}
	if diff := diffLines(want, got); len(diff) > 0 {
		ok = false
		fmt.Fprintf(w, "apicheck: the exported API is not what %s says (+ in the code only, - in the file only):\n", currentFile)
		for _, l := range diff {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintf(w, "If the change is on purpose, update the file with\n  %s\nand name each change in %s's Unreleased section (docs/compatibility.md says how).\n", updateCmd, changelog)
	}

	released, err := readAPI(filepath.Join(dir, releasedFile), "go run ./internal/cmd/apicheck -release (at a release)")
	if err != nil {
		return false, err
	}
	text, err := os.ReadFile(filepath.Join(dir, changelog))
	if err != nil {
		return false, err
	}
	section, found := unreleased(string(text))
	if !found {
		return false, fmt.Errorf("%s has no \"## Unreleased\" section", changelog)
	}
	var missing []change
	module, err := modulePath(dir)
	if err != nil {
		return false, err
	}
	for _, c := range changes(released, got, module) {
		if !mentioned(section, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		ok = false
		fmt.Fprintf(w, "apicheck: %s's Unreleased section does not name these changes of the exported API since the last release (%s):\n", changelog, releasedFile)
		for _, c := range missing {
			fmt.Fprintf(w, "  %s (%s)\n", c.Names[len(c.Names)-1], c.How)
		}
		fmt.Fprintf(w, "Add a line for each under Unreleased (Added, Changed, Deprecated, Removed), naming it as shown.\n")
	}
	return ok, nil
}

// modulePath returns the path of the module in dir.
func modulePath(dir string) (string, error) {
	out, err := goList(dir, "", "-m")
	return strings.TrimSpace(string(out)), err
}

// diffLines returns the lines only in got, with "+ ", and those only in
// want, with "- ", sorted by line.
func diffLines(want, got []string) []string {
	w, g := lineSet(want), lineSet(got)
	var out []string
	for _, l := range got {
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range want {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
	return out
}

const (
	currentHeader = `# The exported API of this module's public packages, a line per name, as the
# code has it now. Do not edit: after a change on purpose, run
#   ` + updateCmd + `
# and name the change in CHANGELOG.md's Unreleased section (scripts/test checks both).
`
	releasedHeader = `# The exported API as of the last release (until the first release, as of the
# baseline CHANGELOG.md starts from). Written at a release by
#   go run ./internal/cmd/apicheck -release
# Every change since, between this file and api/current.txt, is named in CHANGELOG.md's Unreleased section.
`
)

// readAPI reads an API file's lines, leaving out comments and blank
// lines; make says how the file is made, for an error if it is missing.
func readAPI(path, make string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: make it with %s", path, make)
	}
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// writeAPI writes lines to path after header.
func writeAPI(path, header string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(header+strings.Join(lines, "\n")+"\n"), 0o644)
}

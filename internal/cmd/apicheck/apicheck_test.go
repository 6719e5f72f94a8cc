package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module writes a module of files (path -> content) into a new directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for path, content := range files {
		write(t, dir, path, content)
	}
	return dir
}

func write(t *testing.T, dir, path, content string) {
	t.Helper()
	p := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// apicheck runs the command in dir with args.
func apicheck(dir string, args ...string) (stdout, stderr string, status int) {
	var out, errOut bytes.Buffer
	status = run(append([]string{"-dir", dir}, args...), &out, &errOut)
	return out.String(), errOut.String(), status
}

const changelogStart = "# Changelog\n\n## Unreleased\n\n### Added\n\n### Removed\n\n## v0.1.0\n\n- `a.Old` was there.\n"

// An exported name added without updating api/current.txt fails the check,
// which names the line and the command that updates the file. Updated
// without a changelog line, it fails again, naming what the Unreleased
// section lacks (a line under an older release does not count); with the
// line, it passes. Commands and internal packages are not API.
func TestCheckFailsOnAnUnlistedExportChange(t *testing.T) {
	dir := module(t, map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.24\n",
		"a/a.go":           "package a\n\n// F does nothing.\nfunc F() {}\n",
		"internal/x/x.go":  "package x\n\nfunc Hidden() {}\n",
		"cmd/tool/main.go": "package main\n\nfunc main() {}\n",
		"CHANGELOG.md":     changelogStart,
	})
	if _, errOut, status := apicheck(dir, "-update"); status != 0 {
		t.Fatalf("-update: %d %s", status, errOut)
	}
	if _, errOut, status := apicheck(dir, "-release"); status != 0 {
		t.Fatalf("-release: %d %s", status, errOut)
	}
	if _, errOut, status := apicheck(dir); status != 0 {
		t.Fatalf("the check of an unchanged module: %d %s", status, errOut)
	}

	// Not API: an internal package's and a command's exports.
	write(t, dir, "internal/x/x.go", "package x\n\nfunc Hidden() {}\n\nfunc AlsoHidden(int) {}\n")
	write(t, dir, "cmd/tool/util.go", "package main\n\nfunc Exported() {}\n")
	if _, errOut, status := apicheck(dir); status != 0 {
		t.Fatalf("an internal package's change failed the check: %d %s", status, errOut)
	}

	write(t, dir, "a/g.go", "package a\n\n// G is new.\nfunc G(n int, opts ...string) error { return nil }\n")
	_, errOut, status := apicheck(dir)
	for _, want := range []string{
		"+ pkg example.com/m/a, func G(int, ...string) error",
		"go run ./internal/cmd/apicheck -update",
		"a.G (added)",
	} {
		if status != 1 || !strings.Contains(errOut, want) {
			t.Errorf("the check of an unlisted new export: status %d, want 1 and %q in:\n%s", status, want, errOut)
		}
	}

	if _, errOut, status := apicheck(dir, "-update"); status != 0 {
		t.Fatalf("-update: %d %s", status, errOut)
	}
	write(t, dir, "CHANGELOG.md", changelogStart+"- `a.G` was in v0.1.0 too.\n")
	_, errOut, status = apicheck(dir)
	if status != 1 || strings.Contains(errOut, "api/current.txt says") || !strings.Contains(errOut, "a.G (added)") {
		t.Fatalf("the check of a listed export missing from Unreleased: status %d, want 1 naming a.G only:\n%s", status, errOut)
	}
	write(t, dir, "CHANGELOG.md", strings.Replace(changelogStart, "### Added\n", "### Added\n\n- `a.G(n, opts...)` runs n.\n", 1))
	if _, errOut, status := apicheck(dir); status != 0 {
		t.Fatalf("the check with the export listed and named: %d %s", status, errOut)
	}

	// A changed signature is one change of that name.
	write(t, dir, "a/a.go", "package a\n\n// F does nothing.\nfunc F(int) {}\n")
	apicheck(dir, "-update")
	_, errOut, status = apicheck(dir)
	if status != 1 || !strings.Contains(errOut, "a.F (changed)") {
		t.Fatalf("a changed signature: status %d, want a.F (changed):\n%s", status, errOut)
	}
}

// changes covers a type's lines by the type when the type itself comes or
// goes, a package's by its path when it does, and names a method or field
// as Type.Member.
func TestChangesNameWhatAChangelogNames(t *testing.T) {
	old := []string{
		"pkg example.com/m/a, type T struct",
		"pkg example.com/m/a, type T struct, X int",
		"pkg example.com/m/a, method (*T) M() error",
		"pkg example.com/m/a, type U interface",
		"pkg example.com/m/a, type U interface, N()",
		"pkg example.com/m/a, const C untyped string = \"lock-\"",
		"pkg example.com/m/gone, func F()",
	}
	new := []string{
		"pkg example.com/m/a, type T struct",
		"pkg example.com/m/a, type T struct, X int",
		"pkg example.com/m/a, type T struct, Y string",
		"pkg example.com/m/a, method (*T) M(context.Context) error",
		"pkg example.com/m/a, type V[K comparable, E any] struct",
		"pkg example.com/m/a, type V[K comparable, E any] struct, embedded *b.Base",
		"pkg example.com/m/a, method (*V) Get(K) E",
		"pkg example.com/m/a, const C untyped string = \"lease-\"",
		"pkg example.com/m/b (linux-amd64, darwin-arm64), func New() *Base",
	}
	var got []string
	for _, c := range changes(old, new, "example.com/m") {
		got = append(got, strings.Join(c.Names, "|")+" "+c.How)
	}
	want := []string{
		"T.M|a.T.M changed",
		"T.Y|a.T.Y added",
		"a.C changed",
		"a.U removed",
		"a.V added",
		"example.com/m/b|b added",
		"example.com/m/gone|gone removed",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("changes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	section, _ := unreleased("# C\n\n## [Unreleased]\n\n- `Client.StartAll` and `framework.T.M`; package b\n\n## v0.1.0\n\n- a.C\n")
	for name, want := range map[string]bool{"T.M": true, "a.C": false, "T.S": false} {
		c := change{Names: []string{name}}
		if name == "T.M" {
			c.Names = []string{"T.M", "a.T.M"}
		}
		if got := mentioned(section, c); got != want {
			t.Errorf("mentioned(%q) = %v, want %v", name, got, want)
		}
	}
	if mentioned(section, change{Names: []string{"Client.Start"}}) {
		t.Errorf("Client.StartAll names Client.Start")
	}
}

package main

import (
	"regexp"
	"slices"
	"strings"
)

// change is an exported name whose API lines differ between two dumps.
type change struct {
	// Names are the ways a changelog line may name it: "locks.ErrBusy",
	// "Client.Start" or "framework.Client.Start", a package's import path
	// or its path in the module.
	Names []string
	How   string // added, removed or changed
}

// apiLine is one dump line taken apart.
type apiLine struct {
	pkg    string // the import path
	member string // "Client" for a type's line, "Client.Start" for its method's or field's, "New" for a func
	isType bool   // the line declares a type itself
}

// parseLine takes apart "pkg P[ (platforms)], KIND ...".
func parseLine(l string) apiLine {
	head, rest, _ := strings.Cut(l, ", ")
	for strings.HasSuffix(head, ",") || strings.Contains(head, "(") && !strings.Contains(head, ")") {
		var more string
		more, rest, _ = strings.Cut(rest, ", ") // a platform list has commas
		head += ", " + more
	}
	pkg, _, _ := strings.Cut(strings.TrimPrefix(head, "pkg "), " ")
	kind, decl, _ := strings.Cut(rest, " ")
	name := strings.FieldsFunc(decl, func(r rune) bool { return !isIdent(r) })[0]
	a := apiLine{pkg: pkg, member: name}
	switch kind {
	case "method": // "(*T) M(...)" or "(T) M(...)"
		recv, after, _ := strings.Cut(decl, ") ")
		m := strings.FieldsFunc(after, func(r rune) bool { return !isIdent(r) })[0]
		a.member = strings.TrimLeft(recv, "(*") + "." + m
	case "type":
		// "T struct", "T[P any] struct", "T struct, F int", "T struct,
		// embedded *pkg.E", "T interface, M()", "T interface, unexported
		// methods".
		if i := strings.Index(decl, "["); i >= 0 && i < strings.IndexAny(decl+" ", " ,") {
			decl = decl[:i] + decl[strings.Index(decl, "]")+1:] // the type parameters, which may hold commas
		}
		_, sub, ok := strings.Cut(decl, ", ")
		if !ok {
			a.isType = true
			break
		}
		if sub == "unexported methods" {
			break // a change of the type's own
		}
		if e, ok := strings.CutPrefix(sub, "embedded "); ok {
			e = strings.TrimLeft(e, "*")
			sub = e[strings.LastIndex(e, ".")+1:] // an embedded pkg.E is the field E
		}
		a.member = name + "." + strings.FieldsFunc(sub, func(r rune) bool { return !isIdent(r) })[0]
	}
	return a
}

func isIdent(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

// changes returns the exported names whose lines differ between old and
// new. A line of a type, or a package, that is itself added or removed
// is covered by that type's or package's change.
func changes(old, new []string, module string) []change {
	oldSet, newSet := lineSet(old), lineSet(new)
	oldPkgs, newPkgs := pkgSet(old), pkgSet(new)
	type key struct{ pkg, member string }
	how := map[key]map[string]bool{}
	note := func(l, what string) {
		a := parseLine(l)
		k := key{a.pkg, a.member}
		if !oldPkgs[a.pkg] || !newPkgs[a.pkg] {
			k = key{a.pkg, ""} // the whole package came or went
		} else if t, _, ok := strings.Cut(a.member, "."); ok && typeChanged(oldSet, newSet, a.pkg, t) {
			k = key{a.pkg, t}
		}
		if how[k] == nil {
			how[k] = map[string]bool{}
		}
		how[k][what] = true
	}
	for l := range oldSet {
		if !newSet[l] {
			note(l, "removed")
		}
	}
	for l := range newSet {
		if !oldSet[l] {
			note(l, "added")
		}
	}
	var out []change
	for k, whats := range how {
		c := change{How: "changed"}
		switch {
		case len(whats) == 1 && whats["added"]:
			c.How = "added"
		case len(whats) == 1 && whats["removed"]:
			c.How = "removed"
		}
		pkgName := k.pkg[strings.LastIndex(k.pkg, "/")+1:]
		switch {
		case k.member == "":
			c.Names = []string{k.pkg}
			if rel, ok := strings.CutPrefix(k.pkg, module+"/"); ok {
				c.Names = append(c.Names, rel)
			}
		case strings.Contains(k.member, "."):
			c.Names = []string{k.member, pkgName + "." + k.member}
		default:
			c.Names = []string{pkgName + "." + k.member}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b change) int { return strings.Compare(a.Names[len(a.Names)-1], b.Names[len(b.Names)-1]) })
	return out
}

// typeChanged reports whether type t of pkg is declared in only one of
// the two dumps, or declared differently (its kind changed).
func typeChanged(old, new map[string]bool, pkg, t string) bool {
	decl := func(set map[string]bool) string {
		for l := range set {
			if a := parseLine(l); a.pkg == pkg && a.isType && a.member == t {
				return l
			}
		}
		return ""
	}
	return decl(old) != decl(new)
}

func lineSet(lines []string) map[string]bool {
	s := map[string]bool{}
	for _, l := range lines {
		s[l] = true
	}
	return s
}

func pkgSet(lines []string) map[string]bool {
	s := map[string]bool{}
	for _, l := range lines {
		s[parseLine(l).pkg] = true
	}
	return s
}

// unreleased returns the text of the changelog's Unreleased section: from
// its "## Unreleased" heading (or "## [Unreleased]") to the next "## ".
func unreleased(changelog string) (string, bool) {
	var b strings.Builder
	in, found := false, false
	for _, l := range strings.Split(changelog, "\n") {
		if strings.HasPrefix(l, "## ") {
			heading := strings.ToLower(strings.Trim(strings.TrimPrefix(l, "## "), "[] "))
			in = strings.HasPrefix(heading, "unreleased")
			found = found || in
			continue
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), found
}

// mentioned reports whether text names c in one of its ways, as a whole
// word: "Client.Start" is not named by "Client.StartAll".
func mentioned(text string, c change) bool {
	for _, n := range c.Names {
		re := regexp.MustCompile(`(^|[^\pL\pN_])` + regexp.QuoteMeta(n) + `($|[^\pL\pN_])`)
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

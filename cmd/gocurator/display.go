package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// display shows text read from ZooKeeper (a participant's id, a node's
// name) on a terminal or to a script: as it is if it is printable text
// without spaces, else quoted as a Go string literal, with every control,
// format (bidirectional overrides), space and invalid byte escaped. Text
// that could pass for quoted, or for holders' "-", is quoted too. Whoever
// can create a node in a lock or an election chooses these bytes: printed
// raw, a newline would pass for a second line and an escape sequence could
// rewrite what the reader sees.
func display(s string) string {
	if s == "" || s == "-" || strings.HasPrefix(s, `"`) || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

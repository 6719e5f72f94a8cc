package framework

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidatePath checks path against ZooKeeper's rules (PathUtils.validatePath):
// absolute, no empty, "." or ".." segments, no trailing slash except for the
// root, and none of the characters ZooKeeper refuses. A sequential node's path
// may end in a slash, since the server appends the sequence number.
// The error wraps ErrInvalidPath.
func ValidatePath(path string, sequential bool) error {
	full := path
	if sequential {
		full += "1"
	}
	if why := pathProblem(full); why != "" {
		return fmt.Errorf("%w: %q: %s", ErrInvalidPath, path, why)
	}
	return nil
}

// pathProblem says what is wrong with path, "" if nothing is.
func pathProblem(path string) string {
	switch {
	case path == "":
		return "path must not be empty"
	case path[0] != '/':
		return "path must start with /"
	case path == "/":
		return ""
	case strings.HasSuffix(path, "/"):
		return "path must not end with /"
	}
	for rest := path[1:]; ; {
		seg, after, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return "empty node name"
		case ".", "..":
			return "relative paths are not allowed"
		}
		if !more {
			break
		}
		rest = after
	}
	if !utf8.ValidString(path) {
		return "path is not valid UTF-8"
	}
	// ZooKeeper checks UTF-16 units: a character above U+FFFF is a
	// surrogate pair, which it refuses like any other surrogate.
	for _, r := range path {
		if r <= 0x1f || (r >= 0x7f && r <= 0x9f) ||
			(r >= 0xd800 && r <= 0xf8ff) || r >= 0xfff0 {
			return fmt.Sprintf("invalid character %U", r)
		}
	}
	return ""
}

// validateNamespace checks a namespace: empty, or a path without its leading
// slash.
func validateNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if strings.HasPrefix(ns, "/") {
		return fmt.Errorf("%w: namespace %q must not start with /", ErrInvalidPath, ns)
	}
	return ValidatePath("/"+ns, false)
}

// namespace maps the caller's paths to server paths and back.
type namespace string

// fix returns the server path for a caller's path.
func (ns namespace) fix(path string) string {
	if ns == "" {
		return path
	}
	if path == "/" {
		return "/" + string(ns)
	}
	return "/" + string(ns) + path
}

// root is the server path of the namespace's root node ("/" without one).
func (ns namespace) root() string { return ns.fix("/") }

// unfix returns the caller's path for a server path.
func (ns namespace) unfix(path string) string {
	if ns == "" {
		return path
	}
	root := "/" + string(ns)
	if path == root {
		return "/"
	}
	if strings.HasPrefix(path, root+"/") {
		return path[len(root):]
	}
	return path
}

// JoinPath joins a parent path and a child name with exactly one slash.
func JoinPath(parent, child string) string {
	if parent == "/" || parent == "" {
		return "/" + strings.TrimPrefix(child, "/")
	}
	return strings.TrimSuffix(parent, "/") + "/" + strings.TrimPrefix(child, "/")
}

// SplitPath returns the parent path and the node name of path. The parent of
// a top-level node is "/".
func SplitPath(path string) (parent, name string) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/", path[i+1:]
	}
	return path[:i], path[i+1:]
}

package framework

import (
	"fmt"
	"net"
	"strconv"
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

// toServer returns the server path for a caller's path.
func (ns namespace) toServer(path string) string {
	if ns == "" {
		return path
	}
	if path == "/" {
		return "/" + string(ns)
	}
	return "/" + string(ns) + path
}

// under returns the namespace placed under chroot, a validated path ("" for
// none).
func (ns namespace) under(chroot string) namespace {
	switch {
	case chroot == "":
		return ns
	case ns == "":
		return namespace(chroot[1:])
	}
	return namespace(chroot[1:] + "/" + string(ns))
}

// root is the server path of the namespace's root node ("/" without one).
func (ns namespace) root() string { return ns.toServer("/") }

// fromServer returns the caller's path for a server path.
func (ns namespace) fromServer(path string) string {
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

// parseConnectString splits a connect string into its servers and its
// chroot ("" for none): "h1:2181,h2:2181/app" has the chroot "/app". A
// chroot of "/" is none, as for ZooKeeper; any other must be a valid path.
func parseConnectString(s string) (servers []string, chroot string, err error) {
	hosts := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, chroot = s[:i], s[i:]
		if chroot == "/" {
			chroot = ""
		} else if err := ValidatePath(chroot, false); err != nil {
			return nil, "", fmt.Errorf("%w: connect string %q: chroot: %w", ErrInvalidArg, s, err)
		}
	}
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		server, err := hostPort(h)
		if err != nil {
			return nil, "", fmt.Errorf("%w: connect string %q: %w", ErrInvalidArg, s, err)
		}
		servers = append(servers, server)
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("%w: connect string %q has no server", ErrInvalidArg, s)
	}
	return servers, chroot, nil
}

// defaultPort is ZooKeeper's client port, which a server without one gets,
// as in Java's connect string parser.
const defaultPort = "2181"

// hostPort returns a connect string's server as host:port: a missing port
// ("host", "host:") is 2181; a port must be a number in 1..65535.
func hostPort(h string) (string, error) {
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if host, port, err = net.SplitHostPort(h + ":" + defaultPort); err != nil || strings.Contains(host, ":") && !strings.HasPrefix(h, "[") {
			return "", fmt.Errorf("server %q is not host:port", h)
		}
	}
	if port == "" {
		port = defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
		return "", fmt.Errorf("server %q is not host:port with a port in 1..65535", h)
	}
	return net.JoinHostPort(host, port), nil
}

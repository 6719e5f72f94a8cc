package framework

import (
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// zkValidPath is ZooKeeper's PathUtils.validatePath, step for step, on the
// UTF-16 text the server decodes from path's bytes (invalid UTF-8 becomes
// U+FFFD, as Java's decoder makes it, and the server refuses that).
func zkValidPath(path string) bool {
	chars := utf16.Encode([]rune(path))
	if len(chars) == 0 || chars[0] != '/' {
		return false
	}
	if len(chars) == 1 {
		return true
	}
	if chars[len(chars)-1] == '/' {
		return false
	}
	last := uint16('/')
	for i := 1; i < len(chars); last, i = chars[i], i+1 {
		c := chars[i]
		switch {
		case c == 0:
			return false
		case c == '/' && last == '/':
			return false
		case c == '.' && last == '.':
			if chars[i-2] == '/' && (i+1 == len(chars) || chars[i+1] == '/') {
				return false
			}
		case c == '.':
			if chars[i-1] == '/' && (i+1 == len(chars) || chars[i+1] == '/') {
				return false
			}
		case c <= 0x1f, c >= 0x7f && c <= 0x9f, c >= 0xd800 && c <= 0xf8ff, c >= 0xfff0:
			return false
		}
	}
	return true
}

func addPaths(f *testing.F) {
	for _, p := range []string{
		"/", "/a", "/a/b-c_d.e", "/a/lock-", "/a/", "", "a", "//a", "/a//b", "/a/.", "/a/..", "/a/../b",
		"/.", "/..", "/...", "/a/.b", "/a/b.", "/a\x00", "/a\x1f", "/a\x7f", "/a\u0085", "/a\u009f", "/a\u00a0",
		"/a\ud7ff", "/a\uf000", "/a\uf8ff", "/a\uf900", "/a\uffef", "/a\ufff0", "/a\ufffd", "/a\xff",
		"/caf\u00e9/\u4e2d", "/smile\U0001F600", "/a\xed\xa0\x80", "/a\xc0\x80",
	} {
		f.Add(p, false)
		f.Add(p, true)
	}
}

// FuzzValidatePath: ValidatePath accepts exactly the paths ZooKeeper's
// PathUtils.validatePath accepts (a sequential path with "1" appended, as
// the server appends the sequence), and its error wraps ErrInvalidPath.
func FuzzValidatePath(f *testing.F) {
	addPaths(f)
	f.Fuzz(func(t *testing.T, path string, sequential bool) {
		err := ValidatePath(path, sequential)
		full := path
		if sequential {
			full += "1"
		}
		if want := zkValidPath(full); (err == nil) != want {
			t.Fatalf("ValidatePath(%q, %v) = %v; ZooKeeper accepts it: %v", path, sequential, err, want)
		}
		if err != nil && !errors.Is(err, ErrInvalidPath) {
			t.Fatalf("ValidatePath(%q, %v) = %v, not ErrInvalidPath", path, sequential, err)
		}
	})
}

// FuzzSplitJoinPath: SplitPath and JoinPath never panic; a valid path
// splits into a valid parent and a name without a slash that join back
// into it; a valid parent joined with a valid name splits back into them.
func FuzzSplitJoinPath(f *testing.F) {
	for _, s := range [][2]string{
		{"/a/b", "c"}, {"/a", "b"}, {"/", "a"}, {"/a/", "b"}, {"", "a"}, {"a", "/b"}, {"/a", ""}, {"/a", "b/c"},
		{"/", "/"}, {"//", "//"}, {"/\u00e9", "\u00e9"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, child string) {
		parent, name := SplitPath(path)
		_ = JoinPath(path, child)
		if strings.Contains(name, "/") {
			t.Fatalf("SplitPath(%q) = %q, %q: a name with a slash", path, parent, name)
		}
		if ValidatePath(path, false) == nil {
			if ValidatePath(parent, false) != nil || (path != "/" && name == "") {
				t.Fatalf("SplitPath(%q) = %q, %q", path, parent, name)
			}
			if got := JoinPath(parent, name); got != path {
				t.Fatalf("JoinPath(SplitPath(%q)) = %q", path, got)
			}
		}
		if ValidatePath(path, false) == nil && child != "" && !strings.Contains(child, "/") && ValidatePath("/"+child, false) == nil {
			joined := JoinPath(path, child)
			if err := ValidatePath(joined, false); err != nil {
				t.Fatalf("JoinPath(%q, %q) = %q: %v", path, child, joined, err)
			}
			if p, n := SplitPath(joined); p != path || n != child {
				t.Fatalf("SplitPath(JoinPath(%q, %q)) = %q, %q", path, child, p, n)
			}
		}
	})
}

// canonicalUUID is the reference for a UUID as Java's UUID.toString writes
// it (either case): 36 characters, dashes at 8, 13, 18 and 23, hex digits
// elsewhere.
func canonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		hex := strings.IndexByte("0123456789abcdefABCDEF", c) >= 0
		if dash != (c == '-') || (!dash && !hex) {
			return false
		}
	}
	return true
}

// curatorProtected is Curator 5.4's ProtectedUtils.isProtectedZNode with
// the id in canonical form: more than 40 characters, _c_, a UUID, a dash.
// Over those 40 ASCII characters Java's UTF-16 indices are byte indices.
func curatorProtected(name string) bool {
	return len(name) > 40 && strings.HasPrefix(name, "_c_") && name[39] == '-' && canonicalUUID(name[3:39])
}

const fuzzUUID = "0b7e5e37-33a5-4c67-9a52-d6d8a36c2c0b"

// FuzzProtected: IsProtected, ProtectedID and StripProtectedPrefix never
// panic, agree with each other and with Curator's rule; ProtectedPath
// makes a protected name under the same parent that gives back the id and
// the name, and keeps a valid path valid.
func FuzzProtected(f *testing.F) {
	for _, s := range [][3]string{
		{"_c_" + fuzzUUID + "-lock-0000000001", "/a/lock-", fuzzUUID},
		{"_c_" + strings.ToUpper(fuzzUUID) + "-lock-", "/a/", fuzzUUID},
		{"_c_" + fuzzUUID + "-", "/a", strings.ToUpper(fuzzUUID)},
		{"_c_zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz-lock-", "/", fuzzUUID},
		{"_c_0-0-0-0-00000000000000000000000000000-x", "/a/b", "not-a-uuid"},
		{"_c_" + fuzzUUID + "\u00e9", "/\u00e9", fuzzUUID},
		{"_c_\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9-x", "/a", "a/b"},
		{"lock-0000000001", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, name, path, id string) {
		prot, pid, stripped := IsProtected(name), ProtectedID(name), StripProtectedPrefix(name)
		if want := curatorProtected(name); prot != want {
			t.Fatalf("IsProtected(%q) = %v, Curator says %v", name, prot, want)
		}
		if prot != (pid != "") {
			t.Fatalf("IsProtected(%q) = %v but ProtectedID = %q", name, prot, pid)
		}
		if prot && (ProtectedPrefix+pid+"-"+stripped != name || stripped == "") || !prot && stripped != name {
			t.Fatalf("%q: protected %v, id %q, stripped %q", name, prot, pid, stripped)
		}

		made := ProtectedPath(path, id)
		if !canonicalUUID(id) || ValidatePath(path, true) != nil || path == "/" {
			return
		}
		parent, base := SplitPath(path)
		mParent, mName := SplitPath(made)
		if mParent != parent || mName != ProtectedPrefix+id+"-"+base {
			t.Fatalf("ProtectedPath(%q, %q) = %q", path, id, made)
		}
		if err := ValidatePath(made, base == ""); err != nil {
			t.Fatalf("ProtectedPath(%q, %q) = %q: %v", path, id, made, err)
		}
		full := mName
		if base == "" || ValidatePath(path, false) != nil {
			full += "0000000001" // what the server appends to a sequential node
		}
		if !IsProtected(full) || ProtectedID(full) != id || StripProtectedPrefix(full) != strings.TrimPrefix(full, ProtectedPrefix+id+"-") {
			t.Fatalf("ProtectedPath(%q, %q) = %q: not protected by %q", path, id, made, id)
		}
	})
}

// FuzzNamespace: a namespace is accepted iff "/"+ns is a valid path (and
// ns does not start with a slash); toServer maps a valid path to a valid
// path in the namespace's tree, fromServer maps it back, and fromServer
// leaves a server path outside the namespace alone.
func FuzzNamespace(f *testing.F) {
	for _, s := range [][2]string{
		{"", "/a"}, {"ns", "/"}, {"ns", "/a/b"}, {"ns", "/ns"}, {"ns", "/nsx/a"}, {"ns", "/ns/a"}, {"a/b", "/a/b/c"},
		{"/ns", "/a"}, {"ns/", "/a"}, {"ns//x", "/a"}, {"ns/..", "/a"}, {"ns", "/a/"}, {"\u00e9", "/\u00e9/x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, ns, path string) {
		err := validateNamespace(ns)
		want := ns == "" || !strings.HasPrefix(ns, "/") && zkValidPath("/"+ns)
		if (err == nil) != want || (err != nil && !errors.Is(err, ErrInvalidPath)) {
			t.Fatalf("validateNamespace(%q) = %v; want ok %v", ns, err, want)
		}
		if err != nil {
			return
		}
		n := namespace(ns)
		root := n.root()
		inside := func(p string) bool { return root == "/" || p == root || strings.HasPrefix(p, root+"/") }
		for _, seq := range []bool{false, true} {
			if ValidatePath(path, seq) != nil {
				continue
			}
			server := n.toServer(path)
			if ValidatePath(server, seq) != nil || !inside(server) || n.fromServer(server) != path || (ns == "" && server != path) {
				t.Fatalf("namespace %q: toServer(%q) = %q, fromServer of that %q", ns, path, server, n.fromServer(server))
			}
		}
		if ValidatePath(path, false) == nil {
			caller := n.fromServer(path)
			if inside(path) && (ValidatePath(caller, false) != nil || n.toServer(caller) != path) {
				t.Fatalf("namespace %q: fromServer(%q) = %q, toServer of that %q", ns, path, caller, n.toServer(caller))
			}
			if !inside(path) && caller != path {
				t.Fatalf("namespace %q: fromServer(%q) = %q, outside the namespace", ns, path, caller)
			}
		}
	})
}

// FuzzNewConnectString: New never panics on a connect string. It refuses
// a bad one with ErrInvalidArg; a good one gives servers that are each
// host:port with a port in 1..65535, and a chroot that is "" or a valid
// path; the servers and chroot it keeps make the same client again.
func FuzzNewConnectString(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1:2181", "a:1,b:2, c:3 ,", " , ", "", "a:2181/chroot", "a:1,b:2/x", "/", "host", "[::1]:2181",
		"a:1,,b:2", "\u00a0a:1", "\x01a:1", "127.0.0.1:abc", ":99999", "a:-1", "host:", "a:1/", "a:1//x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, connect string) {
		c, err := New(connect, WithDefaultData(nil))
		if err != nil {
			if !errors.Is(err, ErrInvalidArg) || c != nil {
				t.Fatalf("New(%q) = %v, %v; want ErrInvalidArg", connect, c, err)
			}
			return
		}
		defer c.Close()
		if len(c.servers) == 0 {
			t.Fatalf("New(%q) took no server", connect)
		}
		for _, s := range c.servers {
			_, port, err := net.SplitHostPort(s)
			if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
				t.Fatalf("New(%q) kept the server %q", connect, s)
			}
		}
		if ch := c.cfg.chroot; ch != "" && (ValidatePath(ch, false) != nil || ch == "/") {
			t.Fatalf("New(%q) kept the chroot %q", connect, ch)
		}
		again, err := New(strings.Join(c.servers, ",")+c.cfg.chroot, WithDefaultData(nil))
		if err != nil {
			t.Fatalf("New(%q) again: %v", strings.Join(c.servers, ",")+c.cfg.chroot, err)
		}
		defer again.Close()
		if !slices.Equal(again.servers, c.servers) || again.cfg.chroot != c.cfg.chroot {
			t.Fatalf("servers %q, chroot %q came back as %q, %q", c.servers, c.cfg.chroot, again.servers, again.cfg.chroot)
		}
	})
}

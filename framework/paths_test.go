package framework_test

import (
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
)

func TestValidatePath(t *testing.T) {
	for _, tt := range []struct {
		path string
		seq  bool
		ok   bool
	}{
		{"/", false, true},
		{"/a", false, true},
		{"/a/b-c_d.e", false, true},
		{"/a/lock-", true, true},
		{"/a/", true, true}, // the server appends the sequence
		{"", false, false},
		{"a", false, false},
		{"/a/", false, false},
		{"//a", false, false},
		{"/a//b", false, false},
		{"/a/.", false, false},
		{"/a/../b", false, false},
		{"/a\x00", false, false},
		{"/a\x1f", false, false},
		{"/a\u0085", false, false},
		{"/a\uf000", false, false},
		{"/a\ufff5", false, false},
		{"/a\xff", false, false}, // not UTF-8
		{"/caf\u00e9/\u4e2d", false, true},
		{"/smile\U0001F600", false, false}, // a surrogate pair in UTF-16, as the server checks
	} {
		err := framework.ValidatePath(tt.path, tt.seq)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, framework.ErrInvalidPath)) {
			t.Errorf("ValidatePath(%q, %v) = %v, want ok=%v", tt.path, tt.seq, err, tt.ok)
		}
	}
}

func TestJoinAndSplitPath(t *testing.T) {
	if got := framework.JoinPath("/", "a"); got != "/a" {
		t.Errorf("JoinPath(/, a) = %q", got)
	}
	if got := framework.JoinPath("/a/", "/b"); got != "/a/b" {
		t.Errorf("JoinPath(/a/, /b) = %q", got)
	}
	if p, n := framework.SplitPath("/a/b"); p != "/a" || n != "b" {
		t.Errorf("SplitPath(/a/b) = %q, %q", p, n)
	}
	if p, n := framework.SplitPath("/a"); p != "/" || n != "a" {
		t.Errorf("SplitPath(/a) = %q, %q", p, n)
	}
}

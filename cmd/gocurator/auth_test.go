package main

import (
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// Digest authentication comes from $GOCURATOR_DIGEST: with it, gocurator
// takes a lock under a node only that identity may write to; without it,
// or with a wrong password, it fails (121) and its command does not run.
// The lock's connect string carries a chroot (the namespace, as a chroot).
func TestDigestAuthFromTheEnvironment(t *testing.T) {
	b := newBoard(t)
	owner := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(b.ns), framework.WithDigestAuth("ops", "s3cret"))
	if _, err := owner.Create(b.ctx, "/secure", nil, framework.WithACL(framework.DigestACL(framework.PermAll, "ops", "s3cret"))); err != nil {
		t.Fatal(err)
	}
	chroot := []string{"ZOOKEEPER_CONNECT=" + server.ConnectString() + "/" + b.ns, "GOCURATOR_NAMESPACE="}
	for _, tc := range []struct {
		digest string
		status int
	}{
		{"", exitFailed},
		{"ops:wrong", exitFailed},
		{"ops:s3cret", 0},
	} {
		env := append(b.env(b.helper("run", "R")...), chroot...)
		env = append(env, "GOCURATOR_DIGEST="+tc.digest)
		out, errOut, status := b.run(env, "lock", "--connect-timeout", "5s", "/secure/lock", "--", self)
		t.Logf("digest %q: status %d, stderr %q", tc.digest, status, errOut)
		ran := strings.Contains(out, "RUN R")
		if status != tc.status || ran != (tc.status == 0) {
			t.Errorf("digest %q: status %d, stdout %q, stderr %q; want %d", tc.digest, status, out, errOut, tc.status)
		}
	}
	kids, _, err := owner.Children(b.ctx, "/secure/lock")
	if err != nil && !isNoNode(err) || len(kids) != 0 {
		t.Fatalf("left in /secure/lock: %v %v", kids, err)
	}
}

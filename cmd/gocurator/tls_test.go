package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// gocurator speaks TLS to a server that requires a client certificate, with
// the PEM files from flags or from the environment: the lock's command runs,
// reaches the same server with the settings it is given (the variables, set
// from the flags), and nothing is left. Without the client certificate, or
// with a CA that did not sign the server's certificate, gocurator cannot
// connect (121), says it was TLS, and runs nothing.
func TestTLS(t *testing.T) {
	srv, err := zkharness.NewServer(zkharness.WithTLS())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	b := newBoard(t)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caPEM, certPEM, keyPEM := srv.TLSClientPEM()
	ca, cert, key := write("ca.pem", caPEM), write("client.pem", certPEM), write("client-key.pem", keyPEM)
	otherCA := write("other-ca.pem", throwawayCA(t))

	for _, tc := range []struct {
		name   string
		flags  []string
		env    []string
		status int
	}{
		{"flags", []string{"--tls-ca", ca, "--tls-cert", cert, "--tls-key", key}, nil, 0},
		{"environment", nil, []string{"GOCURATOR_TLS_CA=" + ca, "GOCURATOR_TLS_CERT=" + cert, "GOCURATOR_TLS_KEY=" + key}, 0},
		{"no client certificate", []string{"--tls-ca", ca}, nil, exitFailed},
		{"another CA", []string{"--tls-ca", otherCA, "--tls-cert", cert, "--tls-key", key}, nil, exitFailed},
		{"plain TCP to the TLS port", nil, nil, exitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(b.env(b.helper("zkmark", "M")...), "ZOOKEEPER_CONNECT="+srv.SecureAddr())
			env = append(env, tc.env...)
			args := append([]string{"lock", "--connect-timeout", "3s"}, tc.flags...)
			out, errOut, status := b.run(env, append(args, "/tls/lock", "--", self)...)
			t.Logf("status %d, stderr %q", status, errOut)
			if status != tc.status || out != "" {
				t.Fatalf("status %d, stdout %q, stderr %q; want %d and no output (zkmark prints only a violation)", status, out, errOut, tc.status)
			}
			if tc.status != 0 && tc.flags != nil && !strings.Contains(strings.ToLower(errOut), "tls") {
				t.Errorf("stderr %q does not say the TLS handshake failed", errOut)
			}
		})
	}
	c := recipestest.NewClient(t, srv.SecureAddr(), framework.WithTLS(srv.TLSConfig()), framework.WithNamespace(b.ns))
	if kids, _, err := c.Children(b.ctx, "/tls/lock"); err != nil && !isNoNode(err) || len(kids) != 0 {
		t.Fatalf("left in /tls/lock: %v %v", kids, err)
	}
}

// TLS settings that cannot work are bad usage: one line, exit 2, and
// nothing sent.
func TestTLSBadUsage(t *testing.T) {
	addr, calls := listener(t)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, throwawayCA(t), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ZOOKEEPER_CONNECT": addr}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"lock", "--tls-ca", filepath.Join(dir, "missing.pem"), "/a", "--", "true"}, env, "no such file"},
		{[]string{"lock", "--tls-ca", garbage, "/a", "--", "true"}, env, "no PEM certificate"},
		{[]string{"lock", "--tls-cert", ca, "/a", "--", "true"}, env, "--tls-cert needs --tls-key"},
		{[]string{"lock", "--tls-key", ca, "/a", "--", "true"}, env, "--tls-key needs --tls-cert"},
		{[]string{"lock", "--tls-cert", ca, "--tls-key", garbage, "/a", "--", "true"}, env, "--tls-cert and --tls-key"},
		{[]string{"holders", "/a"}, map[string]string{"ZOOKEEPER_CONNECT": addr, "GOCURATOR_TLS_KEY": ca}, "--tls-key needs --tls-cert"},
		{[]string{"leader", "/a"}, map[string]string{"ZOOKEEPER_CONNECT": addr, "GOCURATOR_TLS": "maybe"}, "GOCURATOR_TLS"},
	} {
		stdout, stderr, status := runApp(tc.args, tc.env)
		if status != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 2 and one line mentioning %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("bad TLS usage connected %d times", n)
	}
}

// throwawayCA returns a self-signed CA certificate as PEM, one that signed
// nothing the tests' servers show.
func throwawayCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gocurator test: another CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

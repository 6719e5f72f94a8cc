package zkharness

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"testing"
)

// The kit's throwaway PKI: the server's certificate verifies against the
// CA for 127.0.0.1 and localhost, the client's for client authentication,
// and only the server's key store and the CA's certificate are written (no
// CA key).
func TestTLSFiles(t *testing.T) {
	dir := t.TempDir()
	f, err := makeTLSFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files written: %v, want the key store and the trust store", entries)
	}
	ks, err := os.ReadFile(f.keyStore)
	if err != nil {
		t.Fatal(err)
	}
	keyBlock, rest := pem.Decode(ks)
	certBlock, _ := pem.Decode(rest)
	if keyBlock == nil || keyBlock.Type != "PRIVATE KEY" || certBlock == nil || certBlock.Type != "CERTIFICATE" {
		t.Fatalf("key store: want an unencrypted PKCS #8 key and then the certificate")
	}
	server, err := tls.X509KeyPair(pem.EncodeToMemory(certBlock), pem.EncodeToMemory(keyBlock))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := server.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: f.client.RootCAs}); err != nil {
			t.Errorf("the server's certificate for %s: %v", host, err)
		}
	}
	client := f.client.Certificates[0].Leaf
	opts := x509.VerifyOptions{Roots: f.client.RootCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := client.Verify(opts); err != nil {
		t.Errorf("the client's certificate: %v", err)
	}

	// The PEM copies are the same PKI: the pair loads, and the CA verifies it.
	pair, err := tls.X509KeyPair(f.clientPEM.cert, f.clientPEM.key)
	if err != nil {
		t.Fatalf("the client's PEM pair: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(f.clientPEM.ca) {
		t.Fatal("the CA's PEM holds no certificate")
	}
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: opts.KeyUsages}); err != nil {
		t.Errorf("the client's PEM certificate against the PEM CA: %v", err)
	}
}

// An ensemble does not serve TLS, and says so rather than start without it.
func TestEnsembleRefusesTLS(t *testing.T) {
	if _, err := StartEnsemble(3, WithTLS()); !errors.Is(err, errEnsembleTLS) {
		t.Fatalf("StartEnsemble with WithTLS: %v, want %v", err, errEnsembleTLS)
	}
}

// A server without WithTLS has no secure address and no client config.
func TestNoTLSByDefault(t *testing.T) {
	var s Server
	if s.SecureAddr() != "" || s.TLSConfig() != nil {
		t.Fatalf("a server without WithTLS: %q, %v", s.SecureAddr(), s.TLSConfig())
	}
}

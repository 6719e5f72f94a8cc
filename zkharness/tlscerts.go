package zkharness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certLifetime is how long the kit's throwaway certificates are valid: long
// enough for any test run, short enough that a leaked one is soon useless.
const certLifetime = 24 * time.Hour

// tlsFiles are the PEM files a TLS server is configured with, and the client
// side of the same throwaway PKI.
type tlsFiles struct {
	keyStore   string // the server's private key and certificate (ssl.keyStore.type=PEM)
	trustStore string // the CA certificate (ssl.trustStore.type=PEM)
	client     *tls.Config
	clientPEM  pemFiles
}

// pemFiles are a client's TLS settings as PEM: the CA's certificate, and
// the client's certificate and private key.
type pemFiles struct{ ca, cert, key []byte }

// makeTLSFiles makes a throwaway CA, a server certificate for 127.0.0.1 and
// localhost and a client certificate, both signed by the CA, and writes the
// server's key store and trust store into dir. Nothing outlives dir: the
// CA's key is never written.
func makeTLSFiles(dir string) (tlsFiles, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tlsFiles{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "recipestest throwaway CA"},
		NotBefore:             now.Add(-time.Hour), // the JVM's clock may lag a little
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caCert, caDER, err := signCert(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tlsFiles{}, err
	}
	leaf := func(name string, usage x509.ExtKeyUsage, ips []net.IP, dnsNames []string) (*ecdsa.PrivateKey, []byte, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: name},
			NotBefore:   now.Add(-time.Hour),
			NotAfter:    now.Add(certLifetime),
			KeyUsage:    x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: ips,
			DNSNames:    dnsNames,
		}
		_, der, err := signCert(tmpl, caCert, &key.PublicKey, caKey)
		return key, der, err
	}
	serverKey, serverDER, err := leaf("recipestest server", x509.ExtKeyUsageServerAuth,
		[]net.IP{net.IPv4(127, 0, 0, 1)}, []string{"localhost"})
	if err != nil {
		return tlsFiles{}, err
	}
	// ZooKeeper 3.8 checks a client's certificate chain but not its names
	// (measured: one naming no address is accepted), so it names none.
	clientKey, clientDER, err := leaf("recipestest client", x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return tlsFiles{}, err
	}

	keyPEM, err := privateKeyPEM(serverKey)
	if err != nil {
		return tlsFiles{}, err
	}
	f := tlsFiles{
		keyStore:   filepath.Join(dir, "server.pem"),
		trustStore: filepath.Join(dir, "ca.pem"),
	}
	keyStore := append(keyPEM, certPEM(serverDER)...)
	if err := os.WriteFile(f.keyStore, keyStore, 0o600); err != nil {
		return tlsFiles{}, err
	}
	if err := os.WriteFile(f.trustStore, certPEM(caDER), 0o644); err != nil {
		return tlsFiles{}, err
	}

	clientKeyPEM, err := privateKeyPEM(clientKey)
	if err != nil {
		return tlsFiles{}, err
	}
	clientCert, err := tls.X509KeyPair(certPEM(clientDER), clientKeyPEM)
	if err != nil {
		return tlsFiles{}, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(caCert)
	f.clientPEM = pemFiles{ca: certPEM(caDER), cert: certPEM(clientDER), key: clientKeyPEM}
	f.client = &tls.Config{
		RootCAs:      roots,
		Certificates: []tls.Certificate{clientCert},
		MinVersion:   tls.VersionTLS12,
	}
	return f, nil
}

// signCert signs tmpl, with a fresh random serial number, by parent's key.
func signCert(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) (*x509.Certificate, []byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, nil, fmt.Errorf("recipestest: making a certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	return cert, der, err
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// privateKeyPEM encodes key as unencrypted PKCS #8, the form ZooKeeper's PEM
// key store reads without a password.
func privateKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
)

// The environment variables the TLS settings come from; a flag overrides
// its variable.
const (
	envTLS     = holdrun.EnvTLS // "true" (or "1") for --tls
	envTLSCA   = holdrun.EnvTLSCA
	envTLSCert = holdrun.EnvTLSCert
	envTLSKey  = holdrun.EnvTLSKey
)

// tlsFlags say whether, and how, to speak TLS to the servers (ZooKeeper's
// secureClientPort).
type tlsFlags struct {
	on            bool   // --tls: TLS even without a file (the system's roots, no certificate)
	ca, cert, key string // PEM files
	envErr        error  // $GOCURATOR_TLS does not parse
}

// register adds the TLS flags to fs, with defaults from the environment.
func (t *tlsFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	if v := getenv(envTLS); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			t.envErr = fmt.Errorf("$%s: %q is not true or false", envTLS, v)
		}
		t.on = on
	}
	fs.BoolVar(&t.on, "tls", t.on, "")
	fs.StringVar(&t.ca, "tls-ca", getenv(envTLSCA), "")
	fs.StringVar(&t.cert, "tls-cert", getenv(envTLSCert), "")
	fs.StringVar(&t.key, "tls-key", getenv(envTLSKey), "")
}

// config returns the TLS configuration the settings ask for, or nil for
// plain TCP. Its errors are bad usage: a certificate without its key, a file
// that cannot be read or holds no certificate.
func (t *tlsFlags) config() (*tls.Config, error) {
	if t.envErr != nil {
		return nil, t.envErr
	}
	if !t.enabled() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.ca != "" {
		pem, err := os.ReadFile(t.ca)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", unwrapPath(err))
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca: %s holds no PEM certificate", t.ca)
		}
		cfg.RootCAs = roots
	}
	switch {
	case t.cert != "" && t.key != "":
		pair, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert and --tls-key: %w", unwrapPath(err))
		}
		cfg.Certificates = []tls.Certificate{pair}
	case t.cert != "":
		return nil, errors.New("--tls-cert needs --tls-key (or $" + envTLSKey + ")")
	case t.key != "":
		return nil, errors.New("--tls-key needs --tls-cert (or $" + envTLSCert + ")")
	}
	return cfg, nil
}

// enabled reports whether to speak TLS: --tls, or any of its files, says so.
func (t *tlsFlags) enabled() bool { return t.on || t.ca != "" || t.cert != "" || t.key != "" }

// pass puts the settings into h, for the command run under it.
func (t *tlsFlags) pass(h *holdrun.Hold) {
	h.TLS = t.enabled()
	h.TLSCA, h.TLSCert, h.TLSKey = t.ca, t.cert, t.key
}

// unwrapPath keeps a file error to one line: "open F: no such file".
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

package framework

import (
	"crypto/tls"
	"fmt"

	"github.com/gocurator/curator/internal/zkconn"
)

// ErrTLSHandshake means a TLS handshake with a server failed: its
// certificate did not verify, it refused the client's (or the lack of one),
// or they share no protocol version or cipher suite. The error that wraps
// it wraps crypto/tls's too.
var ErrTLSHandshake = zkconn.ErrTLSHandshake

// WithTLS makes the client speak TLS to every server, as ZooKeeper serves it
// on its secureClientPort; give the connect string those ports. cfg's
// RootCAs (nil: the system's) verify the servers, and its Certificates are
// shown to a server that asks for one (ssl.clientAuth=need or want). With
// an empty ServerName, each server's certificate is verified against the
// host it has in the connect string, a name or an IP address. The client
// keeps a copy of cfg: changing cfg later changes nothing.
//
// The TLS handshake is part of connecting and must end within the
// connection timeout. A failed handshake is retried as a refused
// connection is; BlockUntilConnected and operations that give up for want
// of a connection say why the last attempt failed, in an error that wraps
// ErrTLSHandshake and crypto/tls's own (a server whose certificate does not
// verify: *tls.CertificateVerificationError).
//
// With WithDialer too, the dialer makes the connection TLS runs over.
// A nil cfg, or one that cannot work (MinVersion above MaxVersion, a
// certificate without its key), is ErrInvalidArg.
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) error {
		if cfg == nil {
			return fmt.Errorf("%w: nil TLS config", ErrInvalidArg)
		}
		if cfg.MaxVersion != 0 && cfg.MinVersion > cfg.MaxVersion {
			return fmt.Errorf("%w: TLS MinVersion %#x is above MaxVersion %#x", ErrInvalidArg, cfg.MinVersion, cfg.MaxVersion)
		}
		for i, cert := range cfg.Certificates {
			if len(cert.Certificate) == 0 || cert.PrivateKey == nil {
				return fmt.Errorf("%w: TLS certificate %d has no certificate chain or no private key", ErrInvalidArg, i)
			}
		}
		c.tls = cfg.Clone()
		return nil
	}
}

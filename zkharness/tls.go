package zkharness

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WithTLS makes a Server serve TLS too, on a port of its own (ZooKeeper's
// secureClientPort; SecureAddr has it), next to the plain port the kit's
// own commands use. At start the kit makes a throwaway certificate
// authority, a server certificate for 127.0.0.1 and localhost and a client
// certificate, and writes the server's key and the CA's certificate as PEM
// files in the server's directory (ZooKeeper 3.8 reads PEM key and trust
// stores); nothing is kept after Close. The server requires a client
// certificate from that CA (ssl.clientAuth=need): TLSConfig has one.
//
// ZooKeeper serves TLS only through its Netty connection factory, which the
// server then uses on both ports. An Ensemble refuses WithTLS.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// SecureAddr returns the "host:port" of the server's TLS port, "" without
// WithTLS.
func (s *Server) SecureAddr() string { return s.secureAddr }

// TLSConfig returns a client configuration for SecureAddr: the kit's CA as
// the only root, and the kit's client certificate. Each call returns a new
// copy, for the caller to change. It is nil without WithTLS.
func (s *Server) TLSConfig() *tls.Config {
	if s.clientTLS == nil {
		return nil
	}
	return s.clientTLS.Clone()
}

// TLSClientPEM returns what TLSConfig holds, as the PEM a program that
// reads files takes: the kit's CA certificate, the client certificate and
// its private key. Each is a new copy; all are nil without WithTLS.
func (s *Server) TLSClientPEM() (ca, cert, key []byte) {
	p := s.clientPEM
	return bytes.Clone(p.ca), bytes.Clone(p.cert), bytes.Clone(p.key)
}

// setUpTLS makes the server's certificates in its directory, puts the jar
// TLS needs on its class path, and returns the configuration lines that
// serve TLS on port.
func (s *Server) setUpTLS(port int) ([]string, error) {
	if err := s.zk.addNettyCodec(); err != nil {
		return nil, err
	}
	files, err := makeTLSFiles(s.dir)
	if err != nil {
		return nil, err
	}
	s.secureAddr = "127.0.0.1:" + strconv.Itoa(port)
	s.clientTLS, s.clientPEM = files.client, files.clientPEM
	return []string{
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"secureClientPort=" + strconv.Itoa(port),
		"secureClientPortAddress=127.0.0.1",
		"ssl.keyStore.location=" + filepath.ToSlash(files.keyStore), // as dataDir
		"ssl.keyStore.type=PEM",
		"ssl.trustStore.location=" + filepath.ToSlash(files.trustStore),
		"ssl.trustStore.type=PEM",
		"ssl.clientAuth=need",
	}, nil
}

// debianNettyCodec is netty's codec jar as Debian installs it. ZooKeeper's
// TLS handler needs it, but the class path in Debian's zookeeper.jar leaves
// it out: without it the server accepts a TLS connection and closes it at
// once (NoClassDefFoundError: io/netty/handler/codec/ByteToMessageDecoder).
const debianNettyCodec = "/usr/share/java/netty-codec.jar"

// addNettyCodec puts netty's codec jar on the class path unless it is on it
// already (as in ZOOKEEPER_HOME's lib).
func (z *zooKeeper) addNettyCodec() error {
	for _, jar := range filepath.SplitList(z.classpath) {
		if strings.HasPrefix(filepath.Base(jar), "netty-codec") {
			return nil
		}
	}
	if _, err := os.Stat(debianNettyCodec); err != nil {
		return fmt.Errorf("recipestest: TLS needs netty's codec jar (Debian's libnetty-java): %w", err)
	}
	z.classpath += string(os.PathListSeparator) + debianNettyCodec
	return nil
}

// errEnsembleTLS is StartEnsemble's answer to WithTLS.
var errEnsembleTLS = errors.New("WithTLS is for a Server; an Ensemble does not serve TLS")

package framework

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/retry"
)

// Defaults, as Curator's CuratorFrameworkFactory has them.
const (
	DefaultSessionTimeout    = 60 * time.Second
	DefaultConnectionTimeout = 15 * time.Second
)

// Option configures a Client.
type Option func(*config) error

type config struct {
	sessionTimeout    time.Duration
	connectionTimeout time.Duration
	retryPolicy       retry.Policy
	namespace         namespace // the chroot's and WithNamespace's, as one
	chroot            string    // the connect string's chroot, "" for none: never created by the client
	aclProvider       ACLProvider
	auth              []authInfo
	defaultData       []byte
	errorPolicy       listener.ErrorPolicy
	logger            *slog.Logger
	dialer            Dialer
	tls               *tls.Config
	maxReplySize      int // WithMaxReplySize's; 0: DefaultMaxReplySize
	hooks             []any
}

type authInfo struct {
	scheme string
	auth   []byte
}

// WithSessionTimeout sets the session timeout the client asks for. The server
// clamps it to its own bounds; the negotiated value drives the Lost rule.
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: session timeout %v", ErrInvalidArg, d)
		}
		c.sessionTimeout = d
		return nil
	}
}

// WithConnectionTimeout sets how long one attempt of an operation waits for a
// connection before it fails with ErrConnectionLoss (and is retried per the
// retry policy).
func WithConnectionTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: connection timeout %v", ErrInvalidArg, d)
		}
		c.connectionTimeout = d
		return nil
	}
}

// WithRetryPolicy sets the policy every operation is retried under. The
// default is retry.ExponentialBackoffRetry(100ms, 3).
func WithRetryPolicy(p retry.Policy) Option {
	return func(c *config) error {
		c.retryPolicy = p
		return nil
	}
}

// WithNamespace prefixes every path with /ns. Paths given to and returned by
// the client omit the prefix. As in Curator, the client makes /ns and its
// missing parents, as container nodes, before its first operation; the
// server deletes /ns once it is empty, and a create that needs it makes it
// again.
func WithNamespace(ns string) Option {
	return func(c *config) error {
		if err := validateNamespace(ns); err != nil {
			return err
		}
		c.namespace = namespace(ns)
		return nil
	}
}

// WithACLProvider sets the ACLs used for nodes created without explicit ACLs.
// A nil provider is ErrInvalidArg.
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) error {
		if p == nil {
			return fmt.Errorf("%w: nil ACL provider", ErrInvalidArg)
		}
		c.aclProvider = p
		return nil
	}
}

// WithAuth adds authentication the session presents to the server, as
// ZooKeeper's addAuthInfo does. It is sent before any operation, and again on
// every reconnect. If the server refuses it, every operation (and
// BlockUntilConnected) fails with an error wrapping ErrNoAuth, as Java's
// AUTH_FAILED state does.
func WithAuth(scheme string, auth []byte) Option {
	return func(c *config) error {
		c.auth = append(c.auth, authInfo{scheme, append([]byte(nil), auth...)})
		return nil
	}
}

// WithDigestAuth adds "digest" authentication for user and password.
func WithDigestAuth(user, password string) Option {
	return WithAuth("digest", []byte(user+":"+password))
}

// WithDefaultData sets the data of nodes created with nil data. Curator's
// default, and this package's, is the local IP address as text.
func WithDefaultData(data []byte) Option {
	return func(c *config) error {
		c.defaultData = append([]byte{}, data...)
		return nil
	}
}

// WithErrorPolicy sets which connection states recipes treat as errors. The
// default is listener.StandardErrorPolicy; nil is ErrInvalidArg.
func WithErrorPolicy(p listener.ErrorPolicy) Option {
	return func(c *config) error {
		if p == nil {
			return fmt.Errorf("%w: nil error policy", ErrInvalidArg)
		}
		c.errorPolicy = p
		return nil
	}
}

// WithLogger sets the logger. By default the client logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithDialer sets how connections to servers are dialled; tests use it to put
// a fault proxy or a session killer in between. With WithTLS, the dialer
// makes the connection TLS runs over: it sees TLS records, not ZooKeeper's
// frames.
func WithDialer(d Dialer) Option {
	return func(c *config) error {
		c.dialer = d
		return nil
	}
}

// ACLProvider chooses the ACL of nodes created without one.
type ACLProvider interface {
	// DefaultACL is the ACL for paths ACLForPath has nothing for.
	DefaultACL() []ACL
	// ACLForPath returns the ACL for path (as the caller gave it), or nil.
	ACLForPath(path string) []ACL
}

// OpenACLProvider gives every node WorldACL(PermAll), ZooKeeper's
// OPEN_ACL_UNSAFE. It is the default.
type OpenACLProvider struct{}

// DefaultACL returns world:anyone with all permissions.
func (OpenACLProvider) DefaultACL() []ACL { return WorldACL(PermAll) }

// ACLForPath returns nil: every path gets the default.
func (OpenACLProvider) ACLForPath(string) []ACL { return nil }

// aclOr returns acl, as the connection takes it, or if it is empty the ACL
// the client's provider gives path (as the caller names it).
func (c *Client) aclOr(acl []ACL, path string) []zkconn.ACL {
	if len(acl) > 0 {
		return zkACLs(acl)
	}
	p := c.cfg.aclProvider
	if _, ok := p.(OpenACLProvider); ok { // the default: one allocation, not two
		return []zkconn.ACL{{Perms: PermAll, Scheme: "world", ID: "anyone"}}
	}
	if acl := p.ACLForPath(path); len(acl) > 0 {
		return zkACLs(acl)
	}
	return zkACLs(p.DefaultACL())
}

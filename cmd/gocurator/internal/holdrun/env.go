package holdrun

import (
	"fmt"
	"strconv"
	"strings"
)

// The variables a command run under a hold finds in its environment.
const (
	// EnvPath is the lock's or election's path, as given (in the
	// namespace, if there is one).
	EnvPath = "GOCURATOR_PATH"
	// EnvNode is the hold's node (its lease node for a semaphore), in the
	// namespace as EnvPath is.
	EnvNode = "GOCURATOR_NODE"
	// EnvSession is the id of the session that owns the node, in hex as
	// ZooKeeper prints it ("0x1000a2b3c4d0005").
	EnvSession = "GOCURATOR_SESSION_ID"
	// EnvToken is the fencing token: the zxid that created the node, in
	// decimal. Each new hold of the lock has a larger one.
	EnvToken = "GOCURATOR_FENCING_TOKEN"
	// EnvConnect is the connect string the hold was taken through.
	EnvConnect = "ZOOKEEPER_CONNECT"
	// EnvNamespace is the namespace the paths are in ("" for none).
	EnvNamespace = "GOCURATOR_NAMESPACE"
	// EnvTLS is "true" if the hold was taken over TLS, else empty.
	EnvTLS = "GOCURATOR_TLS"
	// EnvTLSCA, EnvTLSCert and EnvTLSKey are the PEM files it was taken
	// with (paths, not secrets: the key's file keeps its own permissions).
	EnvTLSCA   = "GOCURATOR_TLS_CA"
	EnvTLSCert = "GOCURATOR_TLS_CERT"
	EnvTLSKey  = "GOCURATOR_TLS_KEY"
	// EnvDigest holds gocurator's digest credentials ("user:password"). It
	// is never passed on: a command that logs its environment would show
	// the password.
	EnvDigest = "GOCURATOR_DIGEST"
	// EnvDigestFile names a file holding them. It is not passed on
	// either: the command has no use for gocurator's credentials.
	EnvDigestFile = "GOCURATOR_DIGEST_FILE"
)

// Hold is a hold a command runs under.
type Hold struct {
	// Path is the lock's or election's path.
	Path string
	// Node is the hold's node.
	Node string
	// Session is the id of the session that owns Node.
	Session int64
	// Token is the fencing token: the zxid that created Node.
	Token int64
	// Connect and Namespace are where Path is.
	Connect, Namespace string
	// TLS says the connection was TLS, with the PEM files TLSCA, TLSCert
	// and TLSKey (each "" if not given).
	TLS                    bool
	TLSCA, TLSCert, TLSKey string
}

// Env returns base (in os.Environ's form) with the hold's variables set,
// replacing any that base had, and without EnvDigest and EnvDigestFile: so the command can
// reach the hold's server as gocurator did (the connection's settings from
// flags replace the variables they overrode).
func (h Hold) Env(base []string) []string {
	set := [][2]string{
		{EnvPath, h.Path},
		{EnvNode, h.Node},
		{EnvSession, fmt.Sprintf("%#x", h.Session)},
		{EnvToken, strconv.FormatInt(h.Token, 10)},
		{EnvConnect, h.Connect},
		{EnvNamespace, h.Namespace},
		{EnvTLS, tlsFlag(h.TLS)},
		{EnvTLSCA, h.TLSCA},
		{EnvTLSCert, h.TLSCert},
		{EnvTLSKey, h.TLSKey},
	}
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name != EnvDigest && name != EnvDigestFile && !ours(name, set) {
			env = append(env, kv)
		}
	}
	for _, kv := range set {
		env = append(env, kv[0]+"="+kv[1])
	}
	return env
}

// tlsFlag is EnvTLS's value.
func tlsFlag(on bool) string {
	if on {
		return "true"
	}
	return ""
}

func ours(name string, set [][2]string) bool {
	for _, kv := range set {
		if kv[0] == name {
			return true
		}
	}
	return false
}

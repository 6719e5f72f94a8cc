package zkconn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/zkerr"
)

// ErrNotSent is wrapped in the error of a call that was never handed to the
// connection: the Conn was closed, or the caller's context had ended.
var ErrNotSent = errors.New("request not sent")

// codes is go-zookeeper v1.0.4's sentinel for each code it knows
// (constants.go, errCodeToError), the other way round.
var codes = map[error]zkerr.Code{
	zk.ErrAPIError:                zkerr.APIError,
	zk.ErrNoNode:                  zkerr.NoNode,
	zk.ErrNoAuth:                  zkerr.NoAuth,
	zk.ErrBadVersion:              zkerr.BadVersion,
	zk.ErrNoChildrenForEphemerals: zkerr.NoChildrenForEphemerals,
	zk.ErrNodeExists:              zkerr.NodeExists,
	zk.ErrNotEmpty:                zkerr.NotEmpty,
	zk.ErrSessionExpired:          zkerr.SessionExpired,
	zk.ErrInvalidACL:              zkerr.InvalidACL,
	zk.ErrAuthFailed:              zkerr.AuthFailed,
	zk.ErrSessionMoved:            zkerr.SessionMoved,
	zk.ErrReconfigDisabled:        zkerr.ReconfigDisabled,
	zk.ErrBadArguments:            zkerr.BadArguments,
}

// unknownPrefix is how go-zookeeper v1.0.4 words a code it has no sentinel
// for (ErrCode.toError): the operation timeout (-7) and the rollback marker
// of a failed multi's other operations (-2) among them. Its test pins the
// version this was read from.
const unknownPrefix = "unknown error: "

// errOf converts an error go-zookeeper returned into this module's words: a
// zkerr.Code for an answer of the server's; zkerr.ConnectionLoss, wrapping
// the network's error if there is one, for a call cut off with its
// connection; zkerr.ErrClosed once the connection is closing. An error
// that is none of these (a request go-zookeeper could not encode) keeps
// its own text under zkerr.MarshallingError, zkerr.BadArguments or
// zkerr.APIError.
func errOf(err error) error {
	if err == nil {
		return nil
	}
	if c, ok := codes[err]; ok {
		return c
	}
	switch {
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer):
		return zkerr.ConnectionLoss
	case errors.Is(err, zk.ErrClosing):
		return zkerr.ErrClosed
	case errors.Is(err, zk.ErrShortBuffer), errors.Is(err, zk.ErrPtrExpected):
		return fmt.Errorf("%w: %v", zkerr.MarshallingError, err)
	case errors.Is(err, zk.ErrInvalidPath), errors.Is(err, zk.ErrInvalidFlags):
		return fmt.Errorf("%w: %v", zkerr.BadArguments, err)
	case zkerr.IsNetworkError(err): // a write to the socket failed: go-zookeeper hands back its error
		return fmt.Errorf("%w: %w", zkerr.ConnectionLoss, err)
	}
	if c, ok := codeOf(err.Error()); ok {
		return c
	}
	return fmt.Errorf("%w: %v", zkerr.APIError, err)
}

// codeOf reads the code from the text of an error go-zookeeper made for a
// code it has no sentinel for.
func codeOf(text string) (zkerr.Code, bool) {
	rest, ok := strings.CutPrefix(text, unknownPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	return zkerr.Code(n), err == nil
}

// replyTooLarge is the code the transport puts in the place of a reply
// longer than the client accepts (see bufferedConn.refuse).
const replyTooLarge = zkerr.ReplyTooLarge

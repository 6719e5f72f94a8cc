package zkconn

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/zkerr"
)

// ZooKeeper's create modes that go-zookeeper makes with calls of their own.
const (
	modeContainer        = 4
	modePersistentTTL    = 5
	modePersistentSeqTTL = 6
)

// Create creates a node and returns its path (with the sequence number, for
// a sequential mode). If ctx ends first it returns ctx's error, and r.Late
// hears the answer.
func (c *Conn) Create(ctx context.Context, r CreateRequest) (string, error) {
	var written func(bool)
	if r.Written != nil {
		written = c.writes.add(r.Path, r.Written)
	}
	acl := zkACLs(r.ACL)
	var p string
	var late func(request, error)
	if r.Late != nil {
		late = func(_ request, err error) { r.Late(p, err) }
	}
	out := requestFrame + strSize(r.Path) + bufSize(r.Data) + aclSize(r.ACL) + 4
	if r.Mode == modePersistentTTL || r.Mode == modePersistentSeqTTL {
		out += 8
	}
	err := c.call(ctx, request{"create", r.Path, out}, func() (int, error) {
		var err error
		switch r.Mode {
		case modeContainer:
			err = c.replies.run(func() error {
				p, err = c.zk.CreateContainer(r.Path, r.Data, r.Mode, acl)
				return err
			})
		case modePersistentTTL, modePersistentSeqTTL:
			err = c.replies.run(func() error {
				p, err = c.zk.CreateTTL(r.Path, r.Data, r.Mode, acl, r.TTL)
				return err
			})
		default:
			p, err = c.zk.Create(r.Path, r.Data, r.Mode, acl)
		}
		err = c.errOf(err)
		return replySize(strSize(p), err), err
	}, late)
	if written != nil {
		written(err == nil)
	}
	if err != nil {
		return "", err // p may still be written by an abandoned call
	}
	return p, nil
}

// Delete deletes a node if its version matches (-1 matches any).
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	return c.call(ctx, request{"delete", path, requestFrame + strSize(path) + 4}, func() (int, error) {
		err := c.errOf(c.zk.Delete(path, version))
		return replySize(0, err), err
	}, nil)
}

// Exists reports whether a node exists, with its stat if it does, and
// with a watch (see WatchMode), a watch that fires when it is created,
// deleted, or its data changes.
func (c *Conn) Exists(ctx context.Context, path string, watch WatchMode) (bool, *Stat, *Watch, error) {
	var (
		ok   bool
		stat *zk.Stat
		w    *Watch
	)
	err := c.call(ctx, request{"exists", path, requestFrame + strSize(path) + 1}, func() (int, error) {
		var err error
		if watch == NoWatch {
			ok, stat, err = c.zk.Exists(path)
		} else {
			w, err = c.watches.watching(path, watch, func() (<-chan zk.Event, watchKind, error) {
				var zch <-chan zk.Event
				var err error
				ok, stat, zch, err = c.zk.ExistsW(path)
				if ok {
					return zch, kindData, err
				}
				return zch, kindExist, err
			})
		}
		return existsReply(ok, err), c.errOf(err)
	}, c.lateWatch(watch))
	switch {
	case err != nil:
		return false, nil, nil, err // w may still be written by an abandoned call
	case !ok:
		return false, nil, w, nil // go-zookeeper gives a zero stat for a missing node
	}
	return true, statOf(stat), w, nil
}

// Get returns a node's data and stat, and with a watch (see WatchMode), a
// watch that fires when its data changes or it is deleted.
func (c *Conn) Get(ctx context.Context, path string, watch WatchMode) ([]byte, *Stat, *Watch, error) {
	var (
		data []byte
		stat *zk.Stat
		w    *Watch
	)
	err := c.call(ctx, request{"getData", path, requestFrame + strSize(path) + 1}, func() (int, error) {
		var err error
		if watch == NoWatch {
			data, stat, err = c.zk.Get(path)
		} else {
			w, err = c.watches.watching(path, watch, func() (<-chan zk.Event, watchKind, error) {
				var zch <-chan zk.Event
				var err error
				data, stat, zch, err = c.zk.GetW(path)
				return zch, kindData, err
			})
		}
		err = c.errOf(err)
		return replySize(bufSize(data)+statSize, err), err
	}, c.lateWatch(watch))
	if err != nil {
		return nil, nil, nil, err
	}
	return data, statOf(stat), w, nil
}

// Children returns the names of a node's children, and with a watch (see
// WatchMode), a watch that fires when a child is added or removed or the
// node is deleted.
func (c *Conn) Children(ctx context.Context, path string, watch WatchMode) ([]string, *Stat, *Watch, error) {
	var (
		children []string
		stat     *zk.Stat
		w        *Watch
	)
	err := c.call(ctx, request{"getChildren", path, requestFrame + strSize(path) + 1}, func() (int, error) {
		var err error
		if watch == NoWatch {
			children, stat, err = c.zk.Children(path)
		} else {
			w, err = c.watches.watching(path, watch, func() (<-chan zk.Event, watchKind, error) {
				var zch <-chan zk.Event
				var err error
				children, stat, zch, err = c.zk.ChildrenW(path)
				return zch, kindChild, err
			})
		}
		err = c.errOf(err)
		return replySize(listSize(children)+statSize, err), err
	}, c.lateWatch(watch))
	if err != nil {
		return nil, nil, nil, err
	}
	return children, statOf(stat), w, nil
}

// Set sets a node's data if its version matches (-1 matches any).
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*Stat, error) {
	var stat *zk.Stat
	err := c.call(ctx, request{"setData", path, requestFrame + strSize(path) + bufSize(data) + 4}, func() (int, error) {
		var err error
		stat, err = c.zk.Set(path, data, version)
		err = c.errOf(err)
		return replySize(statSize, err), err
	}, nil)
	if err != nil {
		return nil, err
	}
	return statOf(stat), nil
}

// GetACL returns a node's ACL and stat.
func (c *Conn) GetACL(ctx context.Context, path string) ([]ACL, *Stat, error) {
	var (
		acl  []zk.ACL
		stat *zk.Stat
	)
	err := c.call(ctx, request{"getACL", path, requestFrame + strSize(path)}, func() (int, error) {
		var err error
		acl, stat, err = c.zk.GetACL(path)
		err = c.errOf(err)
		return replySize(aclSize(aclsOf(acl))+statSize, err), err
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return aclsOf(acl), statOf(stat), nil
}

// SetACL sets a node's ACL if its ACL version matches (-1 matches any).
func (c *Conn) SetACL(ctx context.Context, path string, acl []ACL, version int32) (*Stat, error) {
	var stat *zk.Stat
	err := c.call(ctx, request{"setACL", path, requestFrame + strSize(path) + aclSize(acl) + 4}, func() (int, error) {
		var err error
		stat, err = c.zk.SetACL(path, zkACLs(acl), version)
		err = c.errOf(err)
		return replySize(statSize, err), err
	}, nil)
	if err != nil {
		return nil, err
	}
	return statOf(stat), nil
}

// Sync makes the server the Conn is on catch up with the leader for path,
// so that the next read there sees every change committed before.
func (c *Conn) Sync(ctx context.Context, path string) error {
	return c.call(ctx, request{"sync", path, requestFrame + strSize(path)}, func() (int, error) {
		_, err := c.zk.Sync(path)
		err = c.errOf(err)
		return replySize(strSize(path), err), err
	}, nil)
}

// AddAuth adds authentication to the session; go-zookeeper sends it again
// on every reconnect once it has succeeded.
func (c *Conn) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	return c.call(ctx, request{"setAuth", "", requestFrame + 4 + strSize(scheme) + bufSize(auth)}, func() (int, error) {
		err := c.errOf(c.zk.AddAuth(scheme, auth))
		if err == nil {
			c.auths.Add(1) // go-zookeeper keeps it, and sends it again on each connection
		}
		return replySize(0, err), err
	}, nil)
}

// Multi commits r.Ops atomically. A transaction the server refused comes
// back with each operation's result (the failed one's error, the others'
// zkerr.RuntimeInconsistency) and the failed one's error. sent, if set, is
// called as the request is handed to go-zookeeper: a transaction never
// handed over cannot have committed.
func (c *Conn) Multi(ctx context.Context, r MultiRequest, sent func()) ([]OpResult, error) {
	reqs := make([]any, len(r.Ops))
	for i, op := range r.Ops {
		switch op.Kind {
		case OpCreate:
			reqs[i] = &zk.CreateRequest{Path: op.Path, Data: op.Data, Acl: zkACLs(op.ACL), Flags: op.Mode}
		case OpDelete:
			reqs[i] = &zk.DeleteRequest{Path: op.Path, Version: op.Version}
		case OpSetData:
			reqs[i] = &zk.SetDataRequest{Path: op.Path, Data: op.Data, Version: op.Version}
		case OpCheck:
			reqs[i] = &zk.CheckVersionRequest{Path: op.Path, Version: op.Version}
		default:
			return nil, fmt.Errorf("%w: operation kind %d", zkerr.BadArguments, op.Kind)
		}
	}
	var written func(bool)
	if r.Written != nil && len(r.Ops) > 0 {
		written = c.writes.add(r.Ops[0].Path, r.Written)
	}
	var res []OpResult
	var late func(request, error)
	if r.Late != nil {
		late = func(_ request, err error) { r.Late(res, err) }
	}
	out := requestFrame + multiHeader
	for _, op := range r.Ops {
		out += opSize(op)
	}
	var first string
	if len(r.Ops) > 0 {
		first = r.Ops[0].Path
	}
	err := c.call(ctx, request{"multi", first, out}, func() (int, error) {
		if sent != nil {
			sent()
		}
		zres, err := c.zk.Multi(reqs...)
		res = make([]OpResult, len(zres))
		in := replyFrame + multiHeader
		for i, zr := range zres {
			res[i] = OpResult{Path: zr.String, Stat: statOf(zr.Stat), Err: c.errOf(zr.Error)}
			in += resultSize(res[i])
		}
		if len(zres) == 0 {
			in = replyFrame
		}
		return in, c.errOf(err)
	}, late)
	if written != nil {
		written(err == nil)
	}
	if err != nil && err == ctx.Err() {
		return nil, err // res may still be written by an abandoned call
	}
	return res, err
}

// errOf converts go-zookeeper's err (see the function errOf); once the
// Conn is closing, a connection error is zkerr.ErrClosed, and a refused
// reply says the limit.
func (c *Conn) errOf(err error) error {
	err = errOf(err)
	switch {
	case err == nil:
	case c.isClosed() && zkerr.IsNetworkError(err):
		return fmt.Errorf("%w: %v", zkerr.ErrClosed, err)
	case err == zkerr.ReplyTooLarge:
		return fmt.Errorf("%w: over the %d bytes it accepts (the servers' jute.maxbuffer)", err, c.cfg.MaxReplySize)
	}
	return err
}

// existsReply is the size of an exists reply: a stat, unless the node does
// not exist (the server says NONODE, with no body).
func existsReply(ok bool, err error) int {
	if !ok || err != nil {
		return replyFrame
	}
	return replyFrame + statSize
}

// lateWatch returns the late function (see call) of a read with watch:
// for a watching read, the one that tells Config.OnLateWatch of a watch set
// after its caller left (made once, in Connect); nil otherwise.
func (c *Conn) lateWatch(watch WatchMode) func(request, error) {
	if watch == NoWatch {
		return nil
	}
	return c.lateWatched
}

package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
)

// CreateMode is a node's kind.
type CreateMode int32

// The create modes, with ZooKeeper's codes.
const (
	Persistent                  CreateMode = 0
	Ephemeral                   CreateMode = 1
	PersistentSequential        CreateMode = 2
	EphemeralSequential         CreateMode = 3
	Container                   CreateMode = 4
	PersistentWithTTL           CreateMode = 5
	PersistentSequentialWithTTL CreateMode = 6
)

// IsEphemeral reports whether nodes of this mode die with their session.
func (m CreateMode) IsEphemeral() bool { return m == Ephemeral || m == EphemeralSequential }

// IsSequential reports whether the server appends a sequence number.
func (m CreateMode) IsSequential() bool {
	return m == PersistentSequential || m == EphemeralSequential || m == PersistentSequentialWithTTL
}

func (m CreateMode) isTTL() bool { return m == PersistentWithTTL || m == PersistentSequentialWithTTL }

func (m CreateMode) valid() bool { return m >= Persistent && m <= PersistentSequentialWithTTL }

// CreateOption configures Create.
type CreateOption func(*createOpts)

type createOpts struct {
	mode      CreateMode
	acl       []ACL
	ttl       time.Duration
	protected bool
	orSet     bool // OrSetData
	keep      bool // WithoutUndo
	parents   parentMode
	nilOption bool // a nil CreateOption was given
}

// apply applies opts, noting a nil one.
func (o *createOpts) apply(opts []CreateOption) {
	for _, opt := range opts {
		if opt == nil {
			o.nilOption = true
			continue
		}
		opt(o)
	}
}

type parentMode int

const (
	noParents parentMode = iota
	persistentParents
	containerParents
)

// WithMode sets the node's mode; the default is Persistent.
func WithMode(m CreateMode) CreateOption { return func(o *createOpts) { o.mode = m } }

// WithACL sets the node's ACL instead of the client's ACLProvider's.
func WithACL(acl []ACL) CreateOption { return func(o *createOpts) { o.acl = acl } }

// WithTTL sets the time to live of a PersistentWithTTL or
// PersistentSequentialWithTTL node (the server must enable TTL nodes).
func WithTTL(d time.Duration) CreateOption { return func(o *createOpts) { o.ttl = d } }

// WithProtection names the node _c_<uuid>-<name>, as Curator's withProtection
// does, so that after a lost reply the client finds the node it created
// instead of creating a second one. If the create fails for good, the client
// finds and deletes its node in the background.
func WithProtection() CreateOption { return func(o *createOpts) { o.protected = true } }

// OrSetData makes a create of a node that already exists set its data
// instead, as Curator's create().orSetData() does: the node ends up with
// data either way, and Create returns its path. A node deleted between the
// two is created again, so it never fails for a race with a delete. It is
// for a plain node: not with a sequential mode or WithProtection, whose
// names are new every time.
func OrSetData() CreateOption { return func(o *createOpts) { o.orSet = true } }

// WithoutUndo keeps the node of a create whose caller gave up before the
// answer (its ctx ended) and that succeeded all the same; by default Create
// deletes it. It is for a node that stands for a fact others act on as soon
// as it exists, whoever made it, as a barrier's node does: another client's
// create of it may already have failed with ErrNodeExists and reported the
// fact, and deleting the node would undo that client's work too. As with
// Curator, whose creates are never undone, a caller that gives up does not
// know whether the node was made. Not with WithProtection, whose cleanup is
// the undo.
func WithoutUndo() CreateOption { return func(o *createOpts) { o.keep = true } }

// WithParents creates missing parents as persistent nodes
// (creatingParentsIfNeeded).
func WithParents() CreateOption { return func(o *createOpts) { o.parents = persistentParents } }

// WithContainerParents creates missing parents as container nodes, which the
// server deletes once their last child is gone
// (creatingParentContainersIfNeeded).
func WithContainerParents() CreateOption { return func(o *createOpts) { o.parents = containerParents } }

// Create creates a node and returns its path (with the sequence number, for
// sequential modes). nil data means the client's default data; use []byte{}
// for an empty node. If ctx ends before the server answers and the create
// turns out to have succeeded, the node is deleted in the background, so that
// nothing is left behind (WithoutUndo keeps it).
//
// As in Curator, a create whose reply the connection lost is sent again:
// without WithProtection a sequential create may then leave a second node,
// and any other create report ErrNodeExists for the node it made. Undoing a
// cancelled create deletes a node without a unique name only at version 0,
// which cannot tell it from a node another client made at the same path
// after someone deleted ours; use WithProtection where that matters.
func (c *Client) Create(ctx context.Context, path string, data []byte, opts ...CreateOption) (string, error) {
	var o createOpts
	o.apply(opts)
	if err := o.check(path, o.mode); err != nil {
		return "", opErr("create", path, err)
	}
	if data == nil {
		data = c.cfg.defaultData
	}
	acl := c.aclOr(o.acl, path)
	full := c.cfg.namespace.toServer(path)
	var id string
	if o.protected {
		id = newProtectedID()
		full = ProtectedPath(full, id)
	}
	parent, _ := SplitPath(full)
	written := writeNoticeOf(ctx)

	var created string
	attempts := 0
	err := c.retrying(ctx, "create", path, func(ctx context.Context, conn conn) error {
		attempts++
		if o.protected && attempts > 1 {
			found, err := c.findProtected(ctx, conn, parent, id, o.mode)
			if err != nil || found != "" {
				created = found
				return err
			}
		}
		r := zkconn.CreateRequest{Path: full, Data: data, Mode: int32(o.mode), ACL: acl, TTL: o.ttl, Written: written}
		p, err := c.createNode(ctx, conn, r, o)
		for o.orSet && errors.Is(err, ErrNodeExists) {
			p = full
			if _, err = conn.Set(ctx, full, data, -1); errors.Is(err, ErrNoNode) { // deleted since: create it again
				p, err = c.createNode(ctx, conn, r, o)
			}
		}
		created = p
		return err
	})
	if err != nil {
		if o.protected && attempts > 0 && !errors.Is(err, ErrNodeExists) && !errors.Is(err, ErrNoNode) &&
			!errors.Is(err, ErrNoAuth) && !errors.Is(err, ErrClosed) {
			c.janitor.add("delete protected node of a failed create", full, func(ctx context.Context) error {
				return c.deleteProtected(ctx, parent, id, o.mode)
			})
		}
		return "", err
	}
	return c.cfg.namespace.fromServer(created), nil
}

// check validates a create of path in mode (Create's WithMode, or a
// transaction's CreateOp) with these options: every create's checks, made
// before anything is sent.
func (o *createOpts) check(path string, mode CreateMode) error {
	if err := ValidatePath(path, mode.IsSequential()); err != nil {
		return err
	}
	switch {
	case o.nilOption:
		return fmt.Errorf("%w: nil option", ErrInvalidArg)
	case path == "/":
		return fmt.Errorf("%w: cannot create the root", ErrInvalidPath)
	case !mode.valid():
		return fmt.Errorf("%w: create mode %d", ErrInvalidArg, mode)
	case mode.isTTL() && o.ttl <= 0:
		return fmt.Errorf("%w: TTL mode needs a positive TTL", ErrInvalidArg)
	case !mode.isTTL() && o.ttl != 0:
		return fmt.Errorf("%w: TTL given for mode without TTL", ErrInvalidArg)
	case o.orSet && (mode.IsSequential() || o.protected):
		return fmt.Errorf("%w: OrSetData with a sequential mode or WithProtection: the name is new every time", ErrInvalidArg)
	case o.keep && o.protected:
		return fmt.Errorf("%w: WithoutUndo with WithProtection, whose cleanup is the undo", ErrInvalidArg)
	}
	return nil
}

// createNode makes one create request, creating missing parents (and the
// namespace root) first if they turn out to be missing. A parent can go
// again between its create and the node's: a container parent that had
// children is the server's to delete whenever it is empty, which a lock's
// directory is between two holders. The node's create is then made again
// after the parents, up to parentAttempts times in all.
func (c *Client) createNode(ctx context.Context, conn conn, r zkconn.CreateRequest, o createOpts) (string, error) {
	p, err := c.createRaw(ctx, conn, r, o)
	parent, _ := SplitPath(r.Path)
	for attempt := 1; errors.Is(err, ErrNoNode) && attempt < parentAttempts; attempt++ {
		switch {
		case o.parents != noParents:
			err = c.mkdirs(ctx, conn, parent, o.parents)
		case parent == c.cfg.namespace.root() && parent != "/":
			err = c.mkdirs(ctx, conn, parent, containerParents)
		default:
			return p, err
		}
		if err != nil {
			return "", err
		}
		p, err = c.createRaw(ctx, conn, r, o)
	}
	return p, err
}

// parentAttempts bounds a create's attempts when its parents keep going
// (see createNode).
const parentAttempts = 4

// createRaw is one create request. If the caller gives up before the answer
// and the node was created after all, the node is deleted: before Create
// returns if the answer comes within undoGrace, in the background otherwise;
// WithoutUndo keeps it.
func (c *Client) createRaw(ctx context.Context, conn conn, r zkconn.CreateRequest, o createOpts) (string, error) {
	if o.keep {
		return conn.Create(ctx, r)
	}
	u := newUndoable(func(p string) {
		c.undoCreate(p, undoVersion(o.mode, o.mode.IsSequential() || o.protected))
	})
	r.Late = u.late
	p, err := conn.Create(ctx, r)
	u.settle(ctx, err)
	return p, err
}

// undoCreate deletes a node whose create the caller abandoned, at version:
// at once if it can, else through the janitor.
func (c *Client) undoCreate(full string, version int32) {
	ctx, cancel := context.WithTimeout(context.Background(), undoGrace)
	defer cancel()
	if err := c.deleteRaw(ctx, full, version); err != nil {
		c.janitor.add("delete node of an abandoned create", full, func(ctx context.Context) error {
			return c.deleteRaw(ctx, full, version)
		})
	}
}

// undoVersion is the version at which an abandoned create's node of this
// mode is deleted; unique says its name is ours alone (sequential or
// protected). A node is deleted only at version 0 (one someone has written
// to since is no longer only ours), but for an ephemeral node with a unique
// name: it is ours until our session ends, whatever its version, and a lock
// node a peer wrote to (Curator's Revoker) would otherwise stay, and block
// its lock, until then.
func undoVersion(mode CreateMode, unique bool) int32 {
	if mode.IsEphemeral() && unique {
		return -1
	}
	return 0
}

// mkdirs creates full and its missing ancestors. It starts at full and
// goes up only as far as it must: the common case is a container reaped by
// the server once its last child went, and one request makes it again (top
// down, every ancestor would cost a request each time). A chain of d missing
// nodes, as on a namespace's first use, costs 2d-1 requests instead of d.
func (c *Client) mkdirs(ctx context.Context, conn conn, full string, mode parentMode) error {
	if full == "/" || full == c.cfg.chroot { // as for ZooKeeper, a chroot must exist
		return nil
	}
	r := zkconn.CreateRequest{Path: full, Data: []byte{}, Mode: int32(Persistent), ACL: c.aclOr(nil, c.cfg.namespace.fromServer(full))}
	if mode == containerParents {
		r.Mode = int32(Container)
	}
	mkdir := func() error {
		_, err := conn.Create(ctx, r)
		return err
	}
	err := mkdir()
	if errors.Is(err, ErrNoNode) {
		parent, _ := SplitPath(full)
		if err := c.mkdirs(ctx, conn, parent, mode); err != nil {
			return err
		}
		err = mkdir()
	}
	if err != nil && !errors.Is(err, ErrNodeExists) {
		return err
	}
	return nil
}

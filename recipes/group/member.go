package group

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipes/node"
)

// Member is Curator's GroupMember: from Start to Close, this process is a
// member of the group at membershipPath under its id, and sees the other
// members. Ids must be unique in a group: two members with one id share one
// node (the later one's data wins), as in Curator.
type Member struct {
	path  string
	id    string
	node  *node.Node
	cache *cache.Cache

	mu       sync.Mutex
	state    runState
	stopLife func() bool   // stops the context.AfterFunc that closes the Member when Start's context ends
	closing  chan struct{} // closed when Close has finished
}

type runState int

const (
	created runState = iota
	started
	closed
)

// New returns a Member of the group at membershipPath under id, with data
// (nil is empty; Curator's default is the local IP address). It sends
// nothing until Start.
func New(client *framework.Client, membershipPath, id string, data []byte) (*Member, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: group %s: nil client", ErrInvalidArg, membershipPath)
	}
	if err := framework.ValidatePath(membershipPath, false); err != nil {
		return nil, fmt.Errorf("%w: group path %q: %w", ErrInvalidArg, membershipPath, err)
	}
	if id == "" || strings.Contains(id, "/") {
		return nil, fmt.Errorf("%w: group %s: member id %q is not a node name", ErrInvalidArg, membershipPath, id)
	}
	own := framework.JoinPath(membershipPath, id)
	if err := framework.ValidatePath(own, false); err != nil {
		return nil, fmt.Errorf("%w: group %s: member id %q: %w", ErrInvalidArg, membershipPath, id, err)
	}
	n, err := node.New(client, own, data, node.WithMode(framework.Ephemeral))
	if err != nil {
		return nil, err
	}
	c, err := cache.New(client, membershipPath, cache.WithMaxDepth(1))
	if err != nil {
		return nil, err
	}
	return &Member{path: membershipPath, id: id, node: n, cache: c, closing: make(chan struct{})}, nil
}

// ID returns the member's id.
func (m *Member) ID() string { return m.id }

// Start joins the group (the node is made in the background, as Curator's
// PersistentNode does) and starts loading the membership; it does not wait
// for either (see Initialized). ctx is the Member's lifetime: when it
// ends, the Member leaves the group as Close does.
func (m *Member) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch m.state {
	case started:
		return fmt.Errorf("%w: group %s", ErrAlreadyStarted, m.path)
	case closed:
		return fmt.Errorf("group %s: %w", m.path, ErrClosed)
	}
	if err := m.node.Start(ctx); err != nil {
		return err
	}
	if err := m.cache.Start(ctx); err != nil {
		m.node.Close()
		return err
	}
	m.state = started
	m.stopLife = context.AfterFunc(ctx, func() { m.Close() })
	return nil
}

// Close leaves the group, deleting the member's node, and stops the
// membership view; it waits for the Member's goroutines, but for the
// listeners' when called from a listener (that goroutine stops once the
// listener has returned). Close is idempotent; Close before Start is
// allowed.
func (m *Member) Close() error {
	m.mu.Lock()
	switch m.state {
	case created:
		m.state = closed
		close(m.closing)
		m.mu.Unlock()
		return nil
	case closed:
		m.mu.Unlock()
		<-m.closing
		return nil
	}
	m.state = closed
	stopLife := m.stopLife
	m.mu.Unlock()
	stopLife()
	m.cache.Close()
	m.node.Close()
	close(m.closing)
	return nil
}

// Initialized returns a channel closed once the membership has been read
// in full the first time.
func (m *Member) Initialized() <-chan struct{} { return m.cache.Initialized() }

// Members returns the group's members as id → data, from the view: this
// member always, with its own data until its node is seen (Curator's
// getCurrentMembers). The data must not be modified.
func (m *Member) Members() map[string][]byte {
	members := make(map[string][]byte)
	for _, name := range m.cache.Children(m.path) {
		if n, ok := m.cache.Get(framework.JoinPath(m.path, name)); ok {
			members[name] = n.Data
		}
	}
	if _, ok := members[m.id]; !ok {
		members[m.id] = m.node.Data()
	}
	return members
}

// SetData sets this member's data and waits until its node holds it.
func (m *Member) SetData(ctx context.Context, data []byte) error {
	m.mu.Lock()
	state := m.state
	m.mu.Unlock()
	switch state {
	case created:
		return fmt.Errorf("%w: group %s", ErrNotStarted, m.path)
	case closed:
		return fmt.Errorf("group %s: %w", m.path, ErrClosed)
	}
	if err := m.node.SetData(ctx, data); err != nil {
		return fmt.Errorf("group %s: member %s: %w", m.path, m.id, err)
	}
	return nil
}

// Data returns this member's data.
func (m *Member) Data() []byte { return bytes.Clone(m.node.Data()) }

// AddListener registers fn to hear of the membership's changes, in order,
// on the view's goroutine (a listener that blocks delays the ones after
// it, never the Member). remove unregisters it. After a lost connection,
// the differences found on reconnect arrive as ordinary events.
func (m *Member) AddListener(fn func(Event)) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: group %s: nil listener", ErrInvalidArg, m.path)
	}
	return m.cache.AddListener(func(ev cache.Event) {
		if gev, ok := translate(m.path, ev); ok {
			fn(gev)
		}
	})
}

// memberID returns the id of the member whose node is at path, a direct
// child of root.
func memberID(root, path string) (string, bool) {
	parent, name := framework.SplitPath(path)
	return name, parent == root && path != root
}

package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/node"
)

// Discovery is Curator's ServiceDiscovery for instances with a payload of
// type T: it registers this process's instances under basePath and keeps
// them registered, and it queries the instances of others. Make one with
// New, Start it, and Close it (which unregisters its instances) before its
// client.
type Discovery[T any] struct {
	client *framework.Client
	base   string
	codec  codec[T]

	mu         sync.Mutex
	state      runState
	life       context.Context // Start's context: the registrations' lifetime
	stopLife   func() bool
	registered map[string]*registration[T] // by instance path
	closeDone  chan struct{}               // closed when Close has finished
}

// registration is one registered instance and the node that keeps it.
type registration[T any] struct {
	inst    Instance[T] // guarded by Discovery.mu
	node    *node.Node
	settled chan struct{} // closed once the first Register has made the node, or failed and forgotten it
	writing chan struct{} // capacity 1: held by the update under way, so that r.inst follows the node's last write
}

type runState int

const (
	created runState = iota
	started
	closed
)

// New returns a Discovery of the services under basePath. It sends nothing
// until a call needs to.
func New[T any](client *framework.Client, basePath string, opts ...Option) (*Discovery[T], error) {
	if client == nil {
		return nil, fmt.Errorf("%w: discovery %s: nil client", ErrInvalidArg, basePath)
	}
	if err := framework.ValidatePath(basePath, false); err != nil {
		return nil, fmt.Errorf("%w: discovery base path %q: %w", ErrInvalidArg, basePath, err)
	}
	o, err := applyOptions(basePath, opts)
	if err != nil {
		return nil, err
	}
	return &Discovery[T]{client: client, base: basePath, codec: codec[T]{class: o.payloadClass},
		registered: make(map[string]*registration[T]), closeDone: make(chan struct{})}, nil
}

// BasePath returns the path the services are under.
func (d *Discovery[T]) BasePath() string { return d.base }

// Start makes the Discovery ready to register instances; it sends
// nothing. ctx is its lifetime: when ctx ends, the Discovery unregisters
// its instances and stops, as Close does.
func (d *Discovery[T]) Start(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case started:
		return fmt.Errorf("%w: discovery %s", ErrAlreadyStarted, d.base)
	case closed:
		return fmt.Errorf("discovery %s: %w", d.base, ErrClosed)
	}
	d.state, d.life = started, ctx
	d.stopLife = context.AfterFunc(ctx, func() { d.Close() })
	return nil
}

// Close unregisters every instance this Discovery registered (deleting
// their nodes, as Curator's close does; if the connection is down, the
// client deletes them once it is back, or the ephemeral ones go with the
// session) and stops. Caches and providers are closed by their owners.
// Close is idempotent; Close before Start is allowed.
func (d *Discovery[T]) Close() error {
	d.mu.Lock()
	if d.state == closed {
		d.mu.Unlock()
		<-d.closeDone
		return nil
	}
	wasStarted := d.state == started
	d.state = closed
	regs := d.registered
	d.registered = nil
	d.mu.Unlock()
	if wasStarted {
		d.stopLife()
	}
	var wg sync.WaitGroup
	for _, r := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.node.Close()
		}()
	}
	wg.Wait()
	close(d.closeDone)
	return nil
}

// path returns the path of the instance id of service name.
func (d *Discovery[T]) path(name, id string) string {
	return framework.JoinPath(framework.JoinPath(d.base, name), id)
}

// Register registers an instance: it writes the instance's JSON to
// basePath/name/id, in a node whose mode its ServiceType decides, and
// keeps it there until Unregister or Close, making it again after it is
// deleted or its session is lost (Curator re-registers on reconnection).
// It fills in what Curator's builder does (a random id, the registration
// time, the Dynamic type) and returns the instance registered. It waits
// until the node is made; if ctx ends first, it registers nothing.
// Registering an instance already registered here updates it (keeping its
// registration time unless inst gives one); a Register that finds the same
// instance's first Register under way waits for it.
func (d *Discovery[T]) Register(ctx context.Context, inst Instance[T]) (Instance[T], error) {
	given := inst.RegistrationTime
	inst = inst.withDefaults(time.Now())
	if err := inst.validate(); err != nil {
		return inst, err
	}
	path := d.path(inst.Name, inst.ID)
	for {
		d.mu.Lock()
		switch d.state {
		case created:
			d.mu.Unlock()
			return inst, fmt.Errorf("%w: discovery %s", ErrNotStarted, d.base)
		case closed:
			d.mu.Unlock()
			return inst, fmt.Errorf("discovery %s: %w", d.base, ErrClosed)
		}
		r := d.registered[path]
		if r == nil {
			return d.register(ctx, path, inst) // with d.mu held
		}
		d.mu.Unlock()
		select {
		case <-r.settled:
		case <-ctx.Done():
			return inst, ctx.Err()
		}
		d.mu.Lock()
		kept := d.registered[path] == r
		d.mu.Unlock()
		if !kept {
			continue // that Register failed, or the instance was unregistered meanwhile
		}
		inst.RegistrationTime = given
		return d.rewrite(ctx, r, inst)
	}
}

// register makes a new registration of inst at path, and waits until its
// node is made. d.mu is held, and released.
func (d *Discovery[T]) register(ctx context.Context, path string, inst Instance[T]) (Instance[T], error) {
	data, err := d.codec.marshal(inst)
	if err != nil {
		d.mu.Unlock()
		return inst, err
	}
	n, err := node.New(d.client, path, data, node.WithMode(inst.ServiceType.mode()))
	if err != nil {
		d.mu.Unlock()
		return inst, err
	}
	r := &registration[T]{inst: inst, node: n, settled: make(chan struct{}), writing: make(chan struct{}, 1)}
	d.registered[path] = r
	life := d.life
	d.mu.Unlock()
	defer close(r.settled)

	err = n.Start(life)
	if err == nil {
		err = n.WaitForInitialCreate(ctx)
	}
	if err != nil {
		d.forget(path, r)
		n.Close()
		return inst, fmt.Errorf("discovery: registering %s: %w", path, err)
	}
	return inst, nil
}

// Update writes a registered instance's new content (Curator's
// updateService) and waits until its node holds it. The instance is found
// by its name and id.
func (d *Discovery[T]) Update(ctx context.Context, inst Instance[T]) error {
	if err := inst.validate(); err != nil {
		return err
	}
	d.mu.Lock()
	r := d.registered[d.path(inst.Name, inst.ID)]
	d.mu.Unlock()
	if r == nil {
		return fmt.Errorf("%w: %s/%s", ErrNotRegistered, inst.Name, inst.ID)
	}
	_, err := d.rewrite(ctx, r, inst)
	return err
}

// rewrite writes inst to r's node once r's first Register has settled,
// with r's registration time unless inst gives one, and returns the
// instance written.
func (d *Discovery[T]) rewrite(ctx context.Context, r *registration[T], inst Instance[T]) (Instance[T], error) {
	select {
	case <-r.settled:
	case <-ctx.Done():
		return inst, ctx.Err()
	}
	if inst.RegistrationTime.IsZero() {
		d.mu.Lock()
		inst.RegistrationTime = r.inst.RegistrationTime
		d.mu.Unlock()
	}
	inst = inst.withDefaults(time.Now())
	data, err := d.codec.marshal(inst)
	if err != nil {
		return inst, err
	}
	return inst, d.update(ctx, r, inst, data)
}

// update writes data, inst's JSON, to r's node. Updates of one instance
// take turns, so that the instance Registered reports is the one its node
// holds.
func (d *Discovery[T]) update(ctx context.Context, r *registration[T], inst Instance[T], data []byte) error {
	select {
	case r.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-r.writing }()
	d.mu.Lock()
	registeredAs := r.inst.ServiceType
	d.mu.Unlock()
	if inst.ServiceType.mode() != registeredAs.mode() {
		return fmt.Errorf("%w: instance %s/%s: service type %s, registered as %s", ErrInvalidArg, inst.Name, inst.ID, inst.ServiceType, registeredAs)
	}
	if err := r.node.SetData(ctx, data); err != nil {
		return fmt.Errorf("discovery: updating %s/%s: %w", inst.Name, inst.ID, err)
	}
	d.mu.Lock()
	r.inst = inst
	d.mu.Unlock()
	return nil
}

// Unregister stops keeping a registered instance, found by its name and
// id, and deletes its node (Curator's guaranteed delete: if the connection
// is down, the client deletes it once it is back, or an ephemeral node goes
// with its session).
func (d *Discovery[T]) Unregister(inst Instance[T]) error {
	path := d.path(inst.Name, inst.ID)
	d.mu.Lock()
	r := d.registered[path]
	delete(d.registered, path)
	d.mu.Unlock()
	if r == nil {
		return fmt.Errorf("%w: %s/%s", ErrNotRegistered, inst.Name, inst.ID)
	}
	return r.node.Close()
}

// Registered returns the instances this Discovery keeps registered.
func (d *Discovery[T]) Registered() []Instance[T] {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Instance[T], 0, len(d.registered))
	for _, r := range d.registered {
		out = append(out, r.inst)
	}
	return out
}

// forget drops r from the registered instances if it is still there.
func (d *Discovery[T]) forget(path string, r *registration[T]) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.registered[path] == r {
		delete(d.registered, path)
	}
}

// checkOpen returns ErrClosed once the Discovery is closed.
func (d *Discovery[T]) checkOpen() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == closed {
		return fmt.Errorf("discovery %s: %w", d.base, ErrClosed)
	}
	return nil
}

// isGone reports whether err says a node is not there.
func isGone(err error) bool { return errors.Is(err, framework.ErrNoNode) }

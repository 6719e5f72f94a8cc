package discovery

import (
	"context"
	"fmt"
	"slices"

	"github.com/gocurator/curator/framework"
)

// Names returns the names of the services under the base path, sorted
// (Curator's queryForNames); none if the base path does not exist.
func (d *Discovery[T]) Names(ctx context.Context) ([]string, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	names, _, err := d.client.Children(ctx, d.base)
	if isGone(err) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// Instances returns the instances of a service, sorted by node name
// (Curator's queryForInstances): one listing and one read per instance.
// An instance that goes meanwhile is left out, and so is one whose data
// does not read as an instance with a T payload (logged at Warn level).
func (d *Discovery[T]) Instances(ctx context.Context, name string) ([]Instance[T], error) {
	if err := checkName("service name", name); err != nil {
		return nil, err
	}
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	dir := framework.JoinPath(d.base, name)
	kids, _, err := d.client.Children(ctx, dir)
	if isGone(err) {
		return []Instance[T]{}, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(kids)
	out := make([]Instance[T], 0, len(kids))
	for _, kid := range kids {
		path := framework.JoinPath(dir, kid)
		data, _, err := d.client.Get(ctx, path)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		inst, err := d.codec.unmarshal(data)
		if err != nil {
			d.client.Logger().Warn("discovery: leaving out an instance that does not read", "path", path, "err", err)
			continue
		}
		out = append(out, inst)
	}
	return out, nil
}

// Instance returns the instance id of a service (Curator's
// queryForInstance), and false if there is none.
func (d *Discovery[T]) Instance(ctx context.Context, name, id string) (Instance[T], bool, error) {
	var zero Instance[T]
	if err := checkName("service name", name); err != nil {
		return zero, false, err
	}
	if err := checkName("instance id", id); err != nil {
		return zero, false, err
	}
	if err := d.checkOpen(); err != nil {
		return zero, false, err
	}
	data, _, err := d.client.Get(ctx, d.path(name, id))
	if isGone(err) {
		return zero, false, nil
	}
	if err != nil {
		return zero, false, err
	}
	inst, err := d.codec.unmarshal(data)
	if err != nil {
		return zero, false, fmt.Errorf("discovery: %s: %w", d.path(name, id), err)
	}
	return inst, true, nil
}

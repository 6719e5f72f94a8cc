package discovery

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/gocurator/curator/framework"
)

// ServiceType is an instance's kind, as Curator's ServiceType enum names
// it. It decides the mode of the instance's node.
type ServiceType string

const (
	// Dynamic instances live in an ephemeral node: they go with their
	// process's session. The default.
	Dynamic ServiceType = "DYNAMIC"
	// DynamicSequential instances live in an ephemeral sequential node,
	// named id + sequence number (in Go, with a protected prefix; see
	// docs/recipes/discovery.md).
	DynamicSequential ServiceType = "DYNAMIC_SEQUENTIAL"
	// Static instances live in a persistent node.
	Static ServiceType = "STATIC"
	// Permanent instances live in a persistent node; Curator registers
	// them from outside the service (its REST server).
	Permanent ServiceType = "PERMANENT"
)

// mode returns the create mode of an instance's node.
func (t ServiceType) mode() framework.CreateMode {
	switch t {
	case DynamicSequential:
		return framework.EphemeralSequential
	case Static, Permanent:
		return framework.Persistent
	}
	return framework.Ephemeral
}

// valid reports whether t is one of Curator's service types ("" is
// Dynamic).
func (t ServiceType) valid() bool {
	switch t {
	case "", Dynamic, DynamicSequential, Static, Permanent:
		return true
	}
	return false
}

// Instance is a service instance: Curator's ServiceInstance, with a
// payload of type T. The zero values of the optional fields are Java's
// nulls on the wire: an empty Address, a zero Port or SSLPort, a nil
// URISpec. An instance is enabled unless Disabled (Java's enabled field,
// inverted so that the zero value is Java's default).
type Instance[T any] struct {
	Name             string      // the service's name
	ID               string      // unique among the service's instances
	Address          string      // host or IP the instance serves on
	Port             int         // 0: none
	SSLPort          int         // 0: none
	Payload          T           // anything JSON takes, as Jackson typed it (see the package documentation)
	RegistrationTime time.Time   // to the millisecond; Register sets it if zero
	ServiceType      ServiceType // "" is Dynamic
	URISpec          *URISpec    // a URI template (ParseURISpec), nil if none
	Disabled         bool        // providers leave a disabled instance out
}

// withDefaults fills what Curator's ServiceInstanceBuilder fills: a
// random id, the registration time, the Dynamic type.
func (i Instance[T]) withDefaults(now time.Time) Instance[T] {
	if i.ID == "" {
		i.ID = newUUID()
	}
	if i.RegistrationTime.IsZero() {
		i.RegistrationTime = now
	}
	i.RegistrationTime = i.RegistrationTime.Truncate(time.Millisecond)
	if i.ServiceType == "" {
		i.ServiceType = Dynamic
	}
	return i
}

// validate checks what a registration needs.
func (i Instance[T]) validate() error {
	if err := checkName("service name", i.Name); err != nil {
		return err
	}
	if err := checkName("instance id", i.ID); err != nil {
		return err
	}
	if !i.ServiceType.valid() {
		return fmt.Errorf("%w: service type %q, want DYNAMIC, DYNAMIC_SEQUENTIAL, STATIC or PERMANENT", ErrInvalidArg, i.ServiceType)
	}
	if i.Port < 0 || i.Port > 65535 || i.SSLPort < 0 || i.SSLPort > 65535 {
		return fmt.Errorf("%w: instance %s/%s: port %d, SSL port %d", ErrInvalidArg, i.Name, i.ID, i.Port, i.SSLPort)
	}
	return nil
}

// checkName checks that a service name or instance id is a node name.
func checkName(what, name string) error {
	if name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%w: %s %q is not a node name", ErrInvalidArg, what, name)
	}
	if err := framework.ValidatePath("/"+name, false); err != nil {
		return fmt.Errorf("%w: %s %q: %w", ErrInvalidArg, what, name, err)
	}
	return nil
}

// newUUID returns a random UUID as Java's UUID.randomUUID().toString()
// writes it, as Curator's builder makes instance ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Package discovery is service discovery in curator-x-discovery's format:
// a service instance registers itself under basePath/name/id as the JSON
// Curator's ServiceDiscovery writes, and finds its peers by name, so Go and
// Java processes of one fleet find each other on one base path.
//
// A Discovery registers instances (Register, Update, Unregister), keeps
// them registered across deletions and lost sessions (each is a node.Node),
// and answers one-off queries (Names, Instances, Instance). A Cache keeps
// the instances of one service name in memory, with change events; a
// Provider picks one of them for a call (round-robin, random or sticky),
// leaving out the instances its callers found down, as Curator's
// ServiceProvider does.
//
// The payload is a Go type of the caller's choosing (the type parameter T),
// written and read as Jackson's JSON with Curator's type information: an
// object payload carries the Java class name as its "@class" key (see
// WithPayloadClass), an array payload is wrapped as [class, array], and
// scalars are bare.
//
// The package sits beside the recipes, not among them, as Curator ships
// discovery as a module of its own (curator-x-discovery): it is a service
// built from recipes (node, cache) with a wire format of its own. See
// docs/recipes/discovery.md.
package discovery

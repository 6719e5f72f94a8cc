package locks

// WriteDriver exposes the read-write lock's writer driver to the
// conformance test.
var WriteDriver = writeDriver{}

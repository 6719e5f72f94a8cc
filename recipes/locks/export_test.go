package locks

// WriteDriver exposes the read-write lock's writer driver to the
// conformance test.
var WriteDriver = writeDriver{}

// ReadDriver exposes the reader driver to the benchmarks.
var ReadDriver = readDriver{}

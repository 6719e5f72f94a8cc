package recipestest

// testingTB is the part of testing.TB the kit uses, so that it can be used
// from TestMain-less helpers and benchmarks alike.
type testingTB interface {
	Helper()
	Name() string
	Fatal(args ...any)
	Cleanup(func())
}

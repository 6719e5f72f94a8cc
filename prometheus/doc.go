// Package prometheus reports what gocurator clients and their recipes do as
// Prometheus metrics: a Hook, registered with framework.WithHooks, whose
// collectors New registers on a prometheus.Registerer.
//
// The names follow Prometheus' conventions: a gocurator_ prefix, the unit
// in the name (_seconds, _bytes), _total on counters, help texts on every
// metric. The result label of requests, operations and retries is ok or an
// error's class from a small fixed set; no metric has a path as a label,
// since paths have no bound. The recipe's name (recipe) and the label a
// user gives a recipe (label) are labels. docs/observability.md has the
// table of names, labels and units, and example queries.
//
// The module github.com/gocurator/curator/prometheus is apart from the
// core's, so that the core keeps its few dependencies.
package prometheus

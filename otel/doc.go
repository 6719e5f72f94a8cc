// Package otel reports what a gocurator client and its recipes do as
// OpenTelemetry metrics and spans: a Hook, registered with
// framework.WithHooks, that records requests, operations, retries,
// connection states, locks' waits, holds and losses, leadership terms,
// caches and shared values through a metric.MeterProvider, and acquires,
// holds, terms and transactions as spans through a trace.TracerProvider.
//
// Metric names and attributes follow OpenTelemetry's naming rules: dotted
// lowercase names under gocurator., units in the instrument's unit (s, By,
// {request}) and not in the name, error.type for the class of an error
// (one of a small fixed set). No metric has a path as an attribute: paths
// have no bound. The recipe's name (gocurator.recipe) and the label a user
// gives a recipe (gocurator.label) are attributes; paths are on spans only.
// docs/observability.md has the table of names, attributes and units.
//
// The module github.com/gocurator/curator/otel is apart from the core's,
// so that the core keeps its few dependencies.
package otel

// Package listener holds the connection states a Client reports, the error
// policies that say which of them a recipe must treat as a failure, and the
// Container that delivers events to listeners in order from one goroutine.
package listener

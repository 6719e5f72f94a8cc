// Package listener holds the connection states a Client reports and the error
// policies that say which of them a recipe must treat as a failure.
package listener

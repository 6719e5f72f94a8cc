// Package retry holds Curator's retry policies and the retry loop every
// framework operation runs in.
//
// A Policy says, after a failure, whether to try again and how long to sleep
// first. Do runs an operation under a policy, retrying only the errors
// IsRetryable accepts, and returns as soon as its context is done.
package retry

//go:build !linux

package main

import "syscall"

// workerProcAttr is nil where the kernel cannot kill a child with its
// parent: a harness killed outright leaves its workers running.
func workerProcAttr() *syscall.SysProcAttr { return nil }

package main

import "syscall"

// workerProcAttr kills a worker when the harness dies: no worker outlives
// it, even a harness killed outright.
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

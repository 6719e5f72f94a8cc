package zkharness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// jvmProcAttr kills the JVM when the process that started it dies: no
// server outlives the test binary, even one killed.
func jvmProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// exited reports whether the JVM has died (it is a zombie until stop reaps it).
func (p *process) exited() bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "stat"))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

package harness

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// pinClient confines this process to the first CPU it may run on and its
// Go code to one processor (GOMAXPROCS 1), and returns the CPUs left for
// the servers: every other one it may run on. Threads made later, and the
// processes this one starts (the Java peers), inherit the client's CPU.
func pinClient() ([]int, error) {
	var mask [16]uint64 // 1024 CPUs
	size := unsafe.Sizeof(mask)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, size, uintptr(unsafe.Pointer(&mask[0]))); errno != 0 {
		return nil, fmt.Errorf("the CPUs this process may run on: %w", errno)
	}
	var cpus []int
	for cpu := range len(mask) * 64 {
		if mask[cpu/64]&(1<<(cpu%64)) != 0 {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) < 2 {
		return nil, fmt.Errorf("this process may run on %d CPU: nothing to keep the servers apart on", len(cpus))
	}
	runtime.GOMAXPROCS(1)
	clear(mask[:])
	mask[cpus[0]/64] = 1 << (cpus[0] % 64)
	// Twice over: a thread made by one not yet confined during the first
	// pass is confined by the second.
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return nil, err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), size, uintptr(unsafe.Pointer(&mask[0])))
			if errno != 0 && !errors.Is(errno, syscall.ESRCH) { // ESRCH: the thread ended
				return nil, fmt.Errorf("thread %d: %w", tid, errno)
			}
		}
	}
	return cpus[1:], nil
}

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

// pinClient confines this process to CPU 0 and its Go code to one
// processor (GOMAXPROCS 1), and returns the CPUs left for the servers:
// every other one. Threads made later, and the processes this one starts
// (the Java peers), inherit CPU 0.
func pinClient() ([]int, error) {
	n := runtime.NumCPU()
	if n < 2 {
		return nil, fmt.Errorf("%d CPU: nothing to keep the servers apart on", n)
	}
	runtime.GOMAXPROCS(1)
	var mask [16]uint64 // 1024 CPUs
	mask[0] = 1         // CPU 0
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
			_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0])))
			if errno != 0 && !errors.Is(errno, syscall.ESRCH) { // ESRCH: the thread ended
				return nil, fmt.Errorf("thread %d: %w", tid, errno)
			}
		}
	}
	cpus := make([]int, 0, n-1)
	for cpu := 1; cpu < n; cpu++ {
		cpus = append(cpus, cpu)
	}
	return cpus, nil
}

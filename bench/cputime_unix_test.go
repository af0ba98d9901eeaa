//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system, on
// all its threads (getrusage(RUSAGE_SELF)); ok is false when it cannot be
// read.
func processCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

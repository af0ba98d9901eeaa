//go:build !unix

package bench

import "time"

// processCPU cannot read the process's CPU time here: the throughput test
// reports no CPU figures.
func processCPU() (cpu time.Duration, ok bool) { return 0, false }

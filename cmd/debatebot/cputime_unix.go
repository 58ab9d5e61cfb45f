//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the processor time (user and system) this process and the children it waited for
// have used so far.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())
		}
	}
	return total
}

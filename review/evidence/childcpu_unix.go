//go:build unix

package evidence

import (
	"syscall"
	"time"
)

// childCPU is the processor time (user and system) of the process's children that have ended
// and been waited for (the go command counts its compilers in its own).
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())
}

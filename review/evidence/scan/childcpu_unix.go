//go:build unix

package scan

import (
	"syscall"
	"time"
)

// ChildCPU is the processor time (user and system) of the process's children that have ended
// and been waited for (the go command counts its compilers in its own).
func ChildCPU() time.Duration { return rusage(syscall.RUSAGE_CHILDREN) }

// ProcessCPU is the processor time (user and system) this process and the children it waited for
// (the go command, the tools) have used so far.
func ProcessCPU() time.Duration {
	return rusage(syscall.RUSAGE_SELF) + rusage(syscall.RUSAGE_CHILDREN)
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())
}

//go:build !unix

package main

import "time"

// cpuTime is 0 where the processor time is not measured: the bench then gives wall times only.
func cpuTime() time.Duration { return 0 }

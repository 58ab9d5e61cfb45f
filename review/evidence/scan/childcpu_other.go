//go:build !unix

package scan

import "time"

// childCPU is 0 where the children's processor time is not measured.
func childCPU() time.Duration { return 0 }

// ProcessCPU is 0 where the processor time is not measured: the bench then gives wall times only.
func ProcessCPU() time.Duration { return 0 }

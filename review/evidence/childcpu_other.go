//go:build !unix

package evidence

import "time"

// childCPU is 0 where the children's processor time is not measured.
func childCPU() time.Duration { return 0 }

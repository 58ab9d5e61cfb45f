//go:build unix

package handlers

import (
	"io/fs"
	"syscall"
)

// diskBytes is what the file takes on disk: its allocated blocks, or its size where they are not known.
func diskBytes(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return max(st.Blocks*512, info.Size())
	}
	return info.Size()
}

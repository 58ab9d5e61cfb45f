package goolib

import (
	"fmt"
	"io"
	"os/exec"
)

// ContainsInt checks if a is in slice.
func ContainsInt(a int, slice []int) bool {
	for _, b := range slice {
		if a == b {
			return true
		}
	}
	return false
}

// ContainsString checks if a is in slice.
func ContainsString(a string, slice []string) bool {
	for _, b := range slice {
		if a == b {
			return true
		}
	}
	return false
}

// Run runs c, writing its output to w, and accepts the exit codes in ec as success.
func Run(c *exec.Cmd, ec []int, w io.Writer) error {
	c.Stdout = w
	c.Stderr = w
	if err := c.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return err
		}
		if !ContainsInt(ee.ExitCode(), ec) {
			return fmt.Errorf("command exited with status %d: %w", ee.ExitCode(), err)
		}
	}
	return nil
}

// PkgSpec is a package's specification.
type PkgSpec struct {
	Name string
	Arch string
}

var validArch = []string{"noarch", "x86_64", "x86_32", "arm"}

func (ps *PkgSpec) verify() error {
	if !ContainsString(ps.Arch, validArch) {
		return fmt.Errorf("invalid architecture: %q", ps.Arch)
	}
	return nil
}

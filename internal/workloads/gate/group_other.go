//go:build !unix

package gate

import (
	"os"
	"os/exec"
)

// setGroup does nothing where process groups are not available.
func setGroup(*exec.Cmd) {}

// interruptGroup interrupts p alone, or kills it where an interrupt
// cannot be sent.
func interruptGroup(p *os.Process) error {
	if err := p.Signal(os.Interrupt); err != nil {
		return p.Kill()
	}
	return nil
}

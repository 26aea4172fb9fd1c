//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Isolate does nothing where process groups are not available.
func Isolate(*exec.Cmd) {}

// Interrupt interrupts p, or kills it where an interrupt cannot be sent.
func Interrupt(p *os.Process) error {
	if err := p.Signal(os.Interrupt); err != nil {
		return p.Kill()
	}
	return nil
}

// Kill kills p.
func Kill(p *os.Process) error { return p.Kill() }

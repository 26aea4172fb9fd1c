//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Isolate makes cmd start in a process group of its own, whose id is its
// pid.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Interrupt sends SIGINT to p's process group (p alone if that fails).
func Interrupt(p *os.Process) error { return signal(p, syscall.SIGINT) }

// Kill sends SIGKILL to p's process group (p alone if that fails).
func Kill(p *os.Process) error { return signal(p, syscall.SIGKILL) }

func signal(p *os.Process, sig syscall.Signal) error {
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		return p.Signal(sig)
	}
	return nil
}

//go:build unix

package gate

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own, whose id is its pid.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interruptGroup sends SIGINT to p's process group.
func interruptGroup(p *os.Process) error {
	return syscall.Kill(-p.Pid, syscall.SIGINT)
}

//go:build unix

package gcpause

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolate puts the child in its own process group, so that a Ctrl-C on
// the terminal reaches only the parent, which then ends the child itself
// (and can still write what was measured).
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// kill ends the child's whole process group.
func kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// signalName is a signal's name as a user types it ("SIGSEGV").
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}

//go:build !unix

package gcpause

import "os/exec"

// isolate is a no-op where process groups are not available.
func isolate(*exec.Cmd) {}

// kill ends the child process.
func kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// signalName is a signal's name.
func signalName(s syscall.Signal) string { return s.String() }

//go:build unix

package gcpause

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName is a signal's name as a user types it ("SIGSEGV").
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}

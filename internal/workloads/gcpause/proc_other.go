//go:build !unix

package gcpause

import "syscall"

// signalName is a signal's name.
func signalName(s syscall.Signal) string { return s.String() }

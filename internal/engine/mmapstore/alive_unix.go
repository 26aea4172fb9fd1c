//go:build unix

package mmapstore

import "golang.org/x/sys/unix"

// processAlive reports whether a process with this pid exists (signal 0
// checks without sending anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

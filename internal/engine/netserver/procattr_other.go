//go:build !linux

package netserver

import "syscall"

// serverProcAttr puts a server in its own process group. Only Linux can
// kill a child when its parent dies (Pdeathsig); elsewhere a crashed run
// can leave its servers running, and StopAll on a clean exit or Ctrl-C is
// what stops them.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

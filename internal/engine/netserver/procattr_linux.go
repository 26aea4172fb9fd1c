package netserver

import "syscall"

// serverProcAttr puts a server in its own process group, so that stopping
// it signals it and nothing else, and asks the kernel to kill it if
// cachebench dies first, so no server outlives a crashed run.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

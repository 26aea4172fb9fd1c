//go:build !unix

package permtest

import "syscall"

// asUser is never reached where no process runs as root (os.Geteuid
// reports -1).
func asUser(uid, gid uint32) *syscall.SysProcAttr { return nil }

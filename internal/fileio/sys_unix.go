//go:build unix

package fileio

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// processAlive reports whether a process with this pid exists (signal 0
// checks without sending anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

func isSyncUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP)
}

// writable reports whether this user may write path (access(2), which
// answers yes to root for any file that is not on a read-only mount).
func writable(path string) bool { return unix.Access(path, unix.W_OK) == nil }

// FreeDisk is the space an unprivileged user may still write on the file
// system holding path (statfs f_bavail × f_bsize); ok is false where it
// cannot be told.
func FreeDisk(path string) (free int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

// chown gives f the owner of the file it replaces, where this process
// may (root); elsewhere the new file is this user's, as any write makes it.
func chown(f *os.File, fi os.FileInfo) {
	if st, ok := fi.Sys().(*unix.Stat_t); ok && os.Geteuid() == 0 {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}

// nonblock is O_NONBLOCK, used to open the other end of a FIFO.
const nonblock = unix.O_NONBLOCK

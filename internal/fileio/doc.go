// Package fileio is the one place where cachebench opens the files a user
// names: every -o of every command, the temp files of builds and traces,
// and input files (traces, records, results).
//
// The output rule (WriteFile, Create, ResolveOutput):
//
//   - A regular file, or a path that does not exist yet, is written to a
//     temp file in the same directory, fsynced and renamed over it, so the
//     path holds its old contents or the complete new ones. On Linux the
//     temp file is unnamed (O_TMPFILE) until just before the rename, so a
//     process killed even by SIGKILL leaves nothing behind; elsewhere it is
//     ".NAME.tmp-PID-N", removed on failure and by the next write of the
//     same path once PID is gone. A replaced file keeps its permission
//     bits (and, when run as root, its owner); a new one is 0644.
//   - A read-only regular file (no write bit set, or not writable by this
//     user) is refused: it is what a user does to protect a result.
//   - A character device (/dev/null) or a FIFO is written in place, never
//     replaced; a FIFO's open waits for a reader and gives up on Ctrl-C.
//   - A symlink is followed, also when dangling: the file it points to is
//     what is written (created if missing), the link stays.
//   - A directory, a block device, a socket, a path under a regular file
//     or in a missing directory is refused (ErrOutput) before any work.
//
// Inputs (OpenInput): regular files and FIFOs are read; a FIFO's open
// waits for a writer and, like its reads, gives up when the context is
// cancelled. Directories, sockets and devices are refused (ErrInput).
package fileio

//go:build !unix

package fileio

import "os"

func processAlive(int) bool { return true }

func isSyncUnsupported(error) bool { return true }

func writable(string) bool { return true }

// FreeDisk cannot tell the free space here.
func FreeDisk(string) (int64, bool) { return 0, false }

func chown(*os.File, os.FileInfo) {}

const nonblock = 0

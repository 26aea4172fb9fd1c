//go:build unix

package machine

import (
	"bytes"

	"golang.org/x/sys/unix"
)

func unameRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return string(bytes.TrimRight(u.Release[:], "\x00"))
}

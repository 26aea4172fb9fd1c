//go:build !linux

package mmapstore

import (
	"errors"
	"os"
)

// createTemp creates a named temp file in dir: without O_TMPFILE, a build
// killed by SIGKILL leaves it behind (".<name>.tmp-*"); it is safe to
// delete once no build runs.
func createTemp(dir, base string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// linkTemp is never called here: createTemp always names the file.
func linkTemp(*os.File, string, string) (string, error) {
	return "", errors.New("unnamed temp files are not supported on this platform")
}

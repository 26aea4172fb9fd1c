package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dropPageCache asks the kernel to drop the cached pages of every file
// under paths (files or directories).
func dropPageCache(paths []string) error {
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := f.Sync(); err != nil {
				return fmt.Errorf("sync %s: %w", p, err)
			}
			if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
				return fmt.Errorf("fadvise %s: %w", p, err)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("drop page cache: %w", err)
		}
	}
	return nil
}

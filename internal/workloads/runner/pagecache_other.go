//go:build !linux

package runner

import (
	"errors"
	"fmt"
	"runtime"
)

// dropPageCache needs posix_fadvise(DONTNEED), which only Linux offers
// here; elsewhere the cold pass is reported as not supported and skipped.
func dropPageCache([]string) error {
	return fmt.Errorf("drop page cache on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

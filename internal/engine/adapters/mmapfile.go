package adapters

import (
	"errors"
	"io"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// mmapFile is a whole file mapped read-only; mmapstore.Mapping is the one
// mapping helper (build-tagged for platforms without mmap).
type mmapFile = mmapstore.Mapping

// openMmap maps path read-only.
func openMmap(path string) (*mmapFile, error) { return mmapstore.Map(path) }

// errorsJoinClose closes c and joins its error to err; a helper for the
// error paths of constructors that must release what they opened.
func errorsJoinClose(err error, c io.Closer) error {
	if c == nil {
		return err
	}
	return errors.Join(err, c.Close())
}

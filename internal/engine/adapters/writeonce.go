package adapters

import (
	"fmt"
	"sync"
)

// writeOnce is the life cycle every write-once file-store adapter shares
// (bbolt, cdb, goleveldb, lmdb, mmapstore): building (Set, then Freeze),
// frozen (Get, Reopen) and closed (everything fails). Adapters embed it;
// its mutex guards the build and the state changes, never Get, which
// runs only between Freeze and Close (the engine contract).
type writeOnce struct {
	mu     sync.Mutex
	name   string // adapter name, for errors
	where  string // its file or directory, for errors
	frozen bool
	closed bool
}

// writable returns the error for a write (op: "set", "freeze") in the
// current state, or nil while building. The caller holds mu.
func (w *writeOnce) writable(op string) error {
	switch {
	case w.closed:
		return fmt.Errorf("%s: %s on %s: %w", w.name, op, w.where, ErrClosed)
	case w.frozen:
		return fmt.Errorf("%s: %s on %s: %w", w.name, op, w.where, ErrFrozen)
	}
	return nil
}

// readStateErr explains why a read (op) found no open store.
func (w *writeOnce) readStateErr(op string) error {
	switch {
	case w.closed:
		return fmt.Errorf("%s: %s on %s: %w", w.name, op, w.where, ErrClosed)
	case !w.frozen:
		return fmt.Errorf("%s: %s on %s: %w", w.name, op, w.where, ErrNotFrozen)
	}
	return fmt.Errorf("%s: %s on %s: store not open", w.name, op, w.where)
}

// reopenable reports whether Reopen may run. The caller holds mu.
func (w *writeOnce) reopenable() bool { return w.frozen && !w.closed }

// markClosed moves to closed and reports whether the store was open
// (Close is idempotent). The caller holds mu.
func (w *writeOnce) markClosed() bool {
	if w.closed {
		return false
	}
	w.closed = true
	return true
}

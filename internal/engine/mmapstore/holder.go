package mmapstore

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Snapshot is one reference to an open Store held through a Holder. The
// Store, and every slice it returned, stays mapped until Release.
type Snapshot struct {
	s    *Store
	refs atomic.Int64 // the Holder's own reference plus one per reader
}

// Store returns the snapshot's store.
func (sn *Snapshot) Store() *Store { return sn.s }

// Release drops the reference; the last one unmaps the file. Release must
// be called exactly once per Acquire.
func (sn *Snapshot) Release() {
	if sn.refs.Add(-1) == 0 {
		sn.s.Close()
	}
}

// Holder serves lookups from one file while a newer build of it can be
// swapped in at any time. Readers pin the current file with Acquire; a
// Reload publishes the new file atomically and the old one is unmapped
// only when its last reader releases it. A failed Reload keeps serving
// the old file.
type Holder struct {
	cur atomic.Pointer[Snapshot]
	mu  sync.Mutex // serialises Reload and Close
}

// NewHolder opens path and serves it.
func NewHolder(path string) (*Holder, error) {
	h := &Holder{}
	if err := h.Reload(path); err != nil {
		return nil, err
	}
	return h, nil
}

// Acquire pins the current file. It never blocks: if a Reload retires the
// snapshot it loaded, it retries with the new one.
func (h *Holder) Acquire() (*Snapshot, error) {
	for {
		sn := h.cur.Load()
		if sn == nil {
			return nil, fmt.Errorf("mmapstore: holder: %w", ErrClosed)
		}
		// A snapshot whose count reached 0 is being unmapped; it has
		// already been replaced (or the holder closed), so load again.
		for n := sn.refs.Load(); n > 0; n = sn.refs.Load() {
			if sn.refs.CompareAndSwap(n, n+1) {
				return sn, nil
			}
		}
	}
}

// GetAppend appends the value of key in the current file to dst.
func (h *Holder) GetAppend(dst, key []byte) ([]byte, bool, error) {
	sn, err := h.Acquire()
	if err != nil {
		return dst, false, err
	}
	dst, ok := sn.s.GetAppend(dst, key)
	sn.Release()
	return dst, ok, nil
}

// Reload opens path and, if that succeeds, makes it the current file. On
// error the previous file keeps serving.
func (h *Holder) Reload(path string) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	sn := &Snapshot{s: s}
	sn.refs.Store(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.cur.Swap(sn); old != nil {
		old.Release()
	}
	return nil
}

// Close stops serving; the current file is unmapped once its readers
// release it. Acquire then fails with ErrClosed.
func (h *Holder) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.cur.Swap(nil); old != nil {
		old.Release()
	}
	return nil
}

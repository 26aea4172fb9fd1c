package mmapstore

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Snapshot is one reference to an open Store held through a Holder. The
// Store, and every slice it returned, stays mapped until Release.
type Snapshot struct {
	s    *Store
	refs atomic.Int64 // the Holder's own reference plus one per reader
	// broken is set by Holder.Check when the file was rewritten in place:
	// Acquire then refuses the snapshot instead of letting a read fault.
	broken atomic.Pointer[error]
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
//
// The new file must reach the path by rename (build does: it writes a
// temp file and renames it over the path), never by rewriting the served
// file in place: a reader of a file truncated or overwritten under its
// mapping faults (SIGBUS) and the process dies. Check (or CheckEvery)
// compares the served file's size and modification time with its mapping
// and stops serving a rewritten one, so that lookups fail with
// ErrRewritten until a Reload, instead of crashing on the next read.
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
		if err := sn.broken.Load(); err != nil {
			return nil, *err
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

// Check compares the served file with its mapping (Store.CheckFile): if
// it was truncated or rewritten in place, the Holder stops serving it and
// Acquire and GetAppend return the ErrRewritten error until a Reload
// publishes a good file. Readers that already hold a snapshot keep it; a
// read of theirs past a shrunken end can still fault, which is why files
// must be replaced by rename. It returns the error, or nil.
func (h *Holder) Check() error {
	sn, err := h.Acquire()
	if err != nil {
		return err
	}
	defer sn.Release()
	if err := sn.s.CheckFile(); err != nil {
		sn.broken.CompareAndSwap(nil, &err)
		return err
	}
	return nil
}

// CheckEvery runs Check every interval on a goroutine of its own until
// the returned stop is called (or the Holder is closed).
func (h *Holder) CheckEvery(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := h.Check(); errors.Is(err, ErrClosed) {
					return
				}
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
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

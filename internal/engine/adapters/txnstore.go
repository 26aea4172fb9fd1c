package adapters

import "fmt"

// closeHandle closes *h if it is open and clears it, so that a second
// call does nothing; what names the handle in the error.
func closeHandle[H interface {
	comparable
	Close() error
}](h *H, what string) error {
	var none H
	if *h == none {
		return nil
	}
	err := (*h).Close()
	*h = none
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// txnStore is the life cycle the transactional file stores (bbolt, LMDB)
// share; each keeps only what its library does differently, behind
// txnBackend:
//
// Build: Set copies each pair into a kvBatch, and a full batch (64 MiB or
// 256 Ki entries) is committed as one durable write transaction, since one
// transaction per Set would time fsyncs rather than the store. Freeze
// commits the rest, closes the writer and opens the file read-only.
//
// Read: Gets borrow long-lived read-only transactions from a readerPool
// (see readerPool for why they are pooled, not begun per Get); the store
// is frozen, so a pooled snapshot never goes stale.
type txnStore[R any] struct {
	writeOnce // the build and state changes
	batch     kvBatch
	backend   txnBackend[R]

	// pool is replaced only by Freeze, Reopen and Close, which must not
	// run concurrently with Get.
	pool *readerPool[R]
}

// txnBackend is what a transactional store's library does; its errors
// name the store (the txnStore adds the operation).
type txnBackend[R any] interface {
	// commit writes every pair of b in one write transaction.
	commit(b *kvBatch) error
	// closeWriter closes the writable handle, if open.
	closeWriter() error
	// openReader opens the finished file read-only and returns the pool
	// of read transactions.
	openReader() (*readerPool[R], error)
	// closeReader closes the read-only handle, if open, once its pool is
	// closed.
	closeReader() error
}

// set queues a copy of the pair and commits the batch when it is full.
// checkKey rejects what the library cannot store (wrapping
// engine.ErrEntryTooLarge).
func (s *txnStore[R]) set(key, val []byte, checkKey func(key, val []byte) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable("set"); err != nil {
		return err
	}
	if err := checkKey(key, val); err != nil {
		return err
	}
	s.batch.add(key, val)
	if s.batch.full() {
		return s.flush()
	}
	return nil
}

// flush commits the pending batch; the library keeps the slices until
// commit, so the arena is reset only afterwards.
func (s *txnStore[R]) flush() error {
	n := s.batch.len()
	if n == 0 {
		return nil
	}
	err := s.backend.commit(&s.batch)
	s.batch.reset()
	if err != nil {
		return fmt.Errorf("%s: commit %d entries to %s: %w", s.name, n, s.where, err)
	}
	return nil
}

// freeze commits the last batch (durably), closes the writer and opens
// the file read-only.
func (s *txnStore[R]) freeze() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable("freeze"); err != nil {
		return err
	}
	if err := s.flush(); err != nil {
		return err
	}
	if err := s.backend.closeWriter(); err != nil {
		return err
	}
	s.frozen = true
	return s.openRead()
}

func (s *txnStore[R]) openRead() error {
	pool, err := s.backend.openReader()
	if err != nil {
		return err
	}
	s.pool = pool
	return nil
}

// acquire borrows a read transaction for a Get; the caller hands it back
// with pool.put.
func (s *txnStore[R]) acquire() (*readerPool[R], R, error) {
	pool := s.pool
	if pool == nil {
		var zero R
		return nil, zero, s.readStateErr("get")
	}
	r, err := pool.get()
	return pool, r, err
}

// reopen closes the read-only file and opens it again (engine.FileBacked).
func (s *txnStore[R]) reopen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.reopenable() {
		return s.readStateErr("reopen")
	}
	if err := s.closeRead(); err != nil {
		return err
	}
	return s.openRead()
}

func (s *txnStore[R]) closeRead() error {
	if s.pool != nil {
		s.pool.closeAll()
		s.pool = nil
	}
	return s.backend.closeReader()
}

// close rolls back the read transactions and closes the file (an
// unfinished build is abandoned, its pending batch dropped).
func (s *txnStore[R]) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.markClosed() {
		return nil
	}
	err := s.closeRead()
	if cerr := s.backend.closeWriter(); err == nil {
		err = cerr
	}
	s.batch = kvBatch{}
	return err
}

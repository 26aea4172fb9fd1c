package adapters

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"
)

// Errors shared by the write-once (Freezer) adapters. They are returned
// wrapped, so callers test them with errors.Is.
var (
	// ErrNotFrozen is returned by Get and Reopen on a write-once store
	// before Freeze.
	ErrNotFrozen = errors.New("store is not frozen yet (call Freeze after the last Set)")
	// ErrFrozen is returned by Set and Freeze on a store that is already
	// frozen.
	ErrFrozen = errors.New("store is frozen (write-once)")
	// ErrClosed is returned by every operation after Close.
	ErrClosed = errors.New("adapter is closed")
)

// unsafeString views b as a string without copying. The result is valid
// only while b is neither modified nor reused, so it may be passed only to
// calls that do not retain the string (a lookup that hashes and compares
// the key, or a store that copies the key before returning). Every use
// names the reason it is safe. Get must not allocate where it can be
// avoided, and string(key) would allocate for any call taking a string.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// cloneBytes copies b into a fresh slice; a nil or empty b gives an empty,
// non-nil slice so that "found with an empty value" stays distinguishable
// from "missing" in libraries that use nil for a miss.
func cloneBytes(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// Small formatters that keep the Config maps readable.
func itoa(n int) string     { return strconv.Itoa(n) }
func i64toa(n int64) string { return strconv.FormatInt(n, 10) }
func btoa(b bool) string    { return strconv.FormatBool(b) }

// nonNeg converts a library's signed counter to the uint64 of
// engine.Statser, clamping a (never expected) negative value to 0.
func nonNeg(n int64) uint64 { return uint64(max(n, 0)) }

// storeDir creates the scratch directory of a file-backed adapter.
func storeDir(dir string) error {
	if dir == "" {
		return errors.New("file-backed adapter needs Options.Dir")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create store directory %s: %w", dir, err)
	}
	return nil
}

// syncDir fsyncs a directory so that a file created in it survives a
// crash; write-once stores call it after their data file is synced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s for fsync: %w", dir, err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, serr)
	}
	if cerr != nil {
		return fmt.Errorf("close directory %s: %w", dir, cerr)
	}
	return nil
}

// batchFlushBytes and batchFlushEntries bound the pending writes of the
// transactional stores (LMDB, bbolt): a batch is committed as one
// transaction when either limit is reached, so a build of N entries costs
// about N/batchFlushEntries commits (each with its fsync) instead of N.
const (
	batchFlushBytes   = 64 << 20
	batchFlushEntries = 256 << 10
)

// kvBatch holds copies of pending key/value pairs in one arena, so that a
// build does not allocate per entry and the caller may reuse its buffers.
type kvBatch struct {
	arena []byte
	ents  []kvRef
}

type kvRef struct{ off, klen, vlen int }

func (b *kvBatch) add(key, val []byte) {
	b.ents = append(b.ents, kvRef{off: len(b.arena), klen: len(key), vlen: len(val)})
	b.arena = append(b.arena, key...)
	b.arena = append(b.arena, val...)
}

func (b *kvBatch) full() bool {
	return len(b.arena) >= batchFlushBytes || len(b.ents) >= batchFlushEntries
}

func (b *kvBatch) len() int { return len(b.ents) }

// each calls fn for every pending pair in insertion order; the slices
// point into the arena and are valid until reset.
func (b *kvBatch) each(fn func(key, val []byte) error) error {
	for _, e := range b.ents {
		k := b.arena[e.off : e.off+e.klen : e.off+e.klen]
		v := b.arena[e.off+e.klen : e.off+e.klen+e.vlen : e.off+e.klen+e.vlen]
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (b *kvBatch) reset() {
	b.arena = b.arena[:0]
	b.ents = b.ents[:0]
}

// readerPool hands out long-lived read handles (LMDB read transactions,
// bbolt read-only transactions) of a frozen store, one goroutine at a time.
//
// Why a pool and not one transaction per Get: beginning and ending a read
// transaction costs two cgo calls, a reader-table slot and Go allocations
// for LMDB, and a mutex pair plus a Tx allocation for bbolt, which would
// dominate the lookup and measure transaction setup rather than the
// store. Because the store is frozen (no writer ever runs again), a
// long-lived snapshot is never stale and pins no pages a writer needs.
// Neither library allows one transaction to be used by two goroutines at
// once, hence the hand-over through a channel, which also gives the race
// detector the happens-before edge between users.
type readerPool[T any] struct {
	free   chan T
	mu     sync.Mutex
	all    []T
	max    int
	open   func() (T, error)
	closeT func(T)
}

func newReaderPool[T any](max int, open func() (T, error), closeT func(T)) *readerPool[T] {
	return &readerPool[T]{free: make(chan T, max), max: max, open: open, closeT: closeT}
}

// get returns a free handle, opening a new one while fewer than max exist,
// and waiting for one otherwise.
func (p *readerPool[T]) get() (T, error) {
	select {
	case t := <-p.free:
		return t, nil
	default:
	}
	p.mu.Lock()
	if len(p.all) < p.max {
		t, err := p.open()
		if err == nil {
			p.all = append(p.all, t)
		}
		p.mu.Unlock()
		return t, err
	}
	p.mu.Unlock()
	return <-p.free, nil
}

// put returns a handle obtained from get; it never blocks because the
// channel can hold every handle ever opened.
func (p *readerPool[T]) put(t T) { p.free <- t }

// closeAll closes every handle. The caller guarantees no get/put runs
// concurrently (it holds the adapter's state lock for writing).
func (p *readerPool[T]) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.all {
		p.closeT(t)
	}
	p.all = nil
	for {
		select {
		case <-p.free:
		default:
			return
		}
	}
}

// truncKey shortens a key for an error message so that a huge key does not
// flood the log.
func truncKey(key []byte) []byte {
	const limit = 64
	if len(key) > limit {
		return key[:limit]
	}
	return key
}

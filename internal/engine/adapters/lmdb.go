//go:build cgo && lmdb

package adapters

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bmatsuo/lmdb-go/lmdb"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "lmdb",
		Kind:        engine.FileStore,
		Description: "LMDB via bmatsuo/lmdb-go (cgo): B+tree in one mmap'd file, raw zero-copy reads",
		New:         newLMDBAdapter,
	})
}

const (
	lmdbFile = "store.lmdb" // with NoSubdir; LMDB adds store.lmdb-lock
	// lmdbMaxReaders is the reader-table size; the read pool keeps a
	// margin below it for LMDB's own use.
	lmdbMaxReaders = 512
	lmdbPoolMax    = lmdbMaxReaders - 16
	lmdbMinMapSize = 1 << 30
)

// lmdbAdapter builds an LMDB environment in a few large write
// transactions and reads it with raw (zero-copy) reads from a pool of
// long-lived read-only transactions (txnStore has the life cycle it shares
// with bbolt).
//
// Build: every commit is durable (no NoSync/NoMetaSync flags: LMDB fsyncs
// data and meta page on commit), so Freeze ends with the file on disk.
// Writes run inside env.Update, which locks the OS thread as LMDB's writer
// mutex requires.
//
// Read: env.View per Get would measure mdb_txn_begin/abort and Go
// allocations more than the B+tree lookup, hence the pool. With
// txn.RawRead the value slice points into the mapping; it is copied into
// dst before the transaction goes back to the pool, so nothing outlives
// the snapshot. lmdb-go opens environments with MDB_NOTLS, which lets a
// read transaction move between threads (one user at a time).
//
// Limits: keys are 1 to 511 bytes (LMDB's compile-time maximum); empty
// keys are rejected. MapSize is virtual (the file grows with the data).
type lmdbAdapter struct {
	path    string
	mapSize int64
	maxKey  int

	txnStore[*lmdb.Txn]
	env *lmdb.Env // the writer, until Freeze
	dbi lmdb.DBI

	readEnv *lmdb.Env // the reader, after Freeze
	readDBI lmdb.DBI
}

func newLMDBAdapter(o engine.Options) (engine.Adapter, error) {
	if err := storeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("lmdb: %w", err)
	}
	a := &lmdbAdapter{
		path:    filepath.Join(o.Dir, lmdbFile),
		mapSize: max(lmdbMinMapSize, 16*o.MemoryBytes),
	}
	a.writeOnce = writeOnce{name: "lmdb", where: a.path}
	a.backend = a
	// A stale file from an earlier run would be extended, not replaced.
	for _, p := range []string{a.path, a.path + "-lock"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("lmdb: remove stale %s: %w", p, err)
		}
	}
	env, err := a.openEnv(0)
	if err != nil {
		return nil, err
	}
	a.env = env
	a.maxKey = env.MaxKeySize()
	if err := env.Update(func(txn *lmdb.Txn) (err error) {
		a.dbi, err = txn.OpenRoot(0)
		return err
	}); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("lmdb: open root database of %s: %w", a.path, err), env)
	}
	return a, nil
}

// openEnv opens the environment file with NoSubdir (a single file rather
// than a directory) plus flags.
func (a *lmdbAdapter) openEnv(flags uint) (*lmdb.Env, error) {
	env, err := lmdb.NewEnv()
	if err != nil {
		return nil, fmt.Errorf("lmdb: new environment for %s: %w", a.path, err)
	}
	if err := env.SetMapSize(a.mapSize); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("lmdb: map size %d for %s: %w", a.mapSize, a.path, err), env)
	}
	if err := env.SetMaxReaders(lmdbMaxReaders); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("lmdb: max readers for %s: %w", a.path, err), env)
	}
	if err := env.Open(a.path, lmdb.NoSubdir|flags, 0o644); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("lmdb: open %s: %w", a.path, err), env)
	}
	return env, nil
}

func (a *lmdbAdapter) Name() string { return "lmdb" }

// Set queues a copy of the pair and commits the batch when it is full.
func (a *lmdbAdapter) Set(key, val []byte) error { return a.set(key, val, a.checkKey) }

func (a *lmdbAdapter) checkKey(key, _ []byte) error {
	if len(key) == 0 || len(key) > a.maxKey {
		return fmt.Errorf("lmdb: key of %d bytes: %w (LMDB keys are 1 to %d bytes)", len(key), engine.ErrEntryTooLarge, a.maxKey)
	}
	return nil
}

// commit implements txnBackend: one env.Update putting every pair (with
// fsync).
func (a *lmdbAdapter) commit(batch *kvBatch) error {
	return a.env.Update(func(txn *lmdb.Txn) error {
		return batch.each(func(k, v []byte) error {
			if err := txn.Put(a.dbi, k, v, 0); err != nil {
				return fmt.Errorf("put key %q: %w", truncKey(k), err)
			}
			return nil
		})
	})
}

// closeWriter implements txnBackend.
func (a *lmdbAdapter) closeWriter() error {
	return closeHandle(&a.env, "lmdb: close writer of "+a.path)
}

// Freeze commits the last batch (durably), closes the writable
// environment and opens the file read-only.
func (a *lmdbAdapter) Freeze() error { return a.freeze() }

// openReader implements txnBackend: the environment read-only and the
// pool of raw-read transactions.
func (a *lmdbAdapter) openReader() (*readerPool[*lmdb.Txn], error) {
	env, err := a.openEnv(lmdb.Readonly)
	if err != nil {
		return nil, err
	}
	var dbi lmdb.DBI
	if err := env.View(func(txn *lmdb.Txn) (err error) {
		dbi, err = txn.OpenRoot(0)
		return err
	}); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("lmdb: open root database of %s: %w", a.path, err), env)
	}
	a.readEnv, a.readDBI = env, dbi
	return newReaderPool(lmdbPoolMax,
		func() (*lmdb.Txn, error) {
			txn, err := env.BeginTxn(nil, lmdb.Readonly)
			if err != nil {
				return nil, fmt.Errorf("lmdb: begin read transaction on %s: %w", a.path, err)
			}
			txn.RawRead = true
			return txn, nil
		},
		func(txn *lmdb.Txn) { txn.Abort() }), nil
}

// closeReader implements txnBackend.
func (a *lmdbAdapter) closeReader() error {
	return closeHandle(&a.readEnv, "lmdb: close "+a.path)
}

// Get looks key up in a pooled read-only transaction and copies the raw
// value into dst before releasing the transaction.
func (a *lmdbAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	pool, txn, err := a.acquire()
	if err != nil {
		return dst, false, err
	}
	v, err := txn.Get(a.readDBI, key)
	if err == nil {
		dst = append(dst, v...)
	}
	pool.put(txn)
	if err != nil {
		if lmdb.IsNotFound(err) {
			return dst, false, nil
		}
		return dst, false, fmt.Errorf("lmdb: get key %q from %s: %w", truncKey(key), a.path, err)
	}
	return dst, true, nil
}

// Len implements engine.Lener from the environment's statistics (the
// number of distinct keys: a key set twice is stored once).
func (a *lmdbAdapter) Len() int {
	env := a.readEnv
	if env == nil {
		return 0
	}
	st, err := env.Stat()
	if err != nil {
		return 0
	}
	return int(st.Entries)
}

// Paths implements engine.FileBacked.
func (a *lmdbAdapter) Paths() []string { return []string{a.path} }

// Reopen implements engine.FileBacked.
func (a *lmdbAdapter) Reopen() error { return a.reopen() }

// DuplicatePolicy implements engine.DuplicateKeyer: a second Put of a key replaces its value.
func (a *lmdbAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.LastWins }

// Config implements engine.Configurer.
func (a *lmdbAdapter) Config() map[string]string {
	return map[string]string{
		"budget":      "none: holds every entry; Options.Dir holds " + lmdbFile + " and its -lock file",
		"map_size":    i64toa(a.mapSize) + " (max(1 GiB, 16 x Options.MemoryBytes); virtual, the file grows with the data)",
		"flags":       "NoSubdir (+ NoTLS, always set by lmdb-go); build: none (durable commits); read: Readonly; readahead on (LMDB default)",
		"build":       fmt.Sprintf("write transactions of up to %d MiB or %d entries, insertion order; each commit fsyncs; Freeze commits the rest", batchFlushBytes>>20, batchFlushEntries),
		"read":        fmt.Sprintf("pool of up to %d long-lived read-only transactions, RawRead (zero-copy) then copied into dst", lmdbPoolMax),
		"max_readers": itoa(lmdbMaxReaders),
		"key_limit":   "1 to 511 bytes",
		"duplicates":  "a key set twice keeps the last value",
		"database":    "unnamed root database",
	}
}

// Close aborts the read transactions and closes the environment (an
// unfinished build is abandoned, its pending batch dropped).
func (a *lmdbAdapter) Close() error { return a.close() }

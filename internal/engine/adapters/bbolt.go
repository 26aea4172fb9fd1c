package adapters

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "bbolt",
		Kind:        engine.FileStore,
		Description: "etcd-io/bbolt: B+tree in one mmap'd file (pure Go), zero-copy reads",
		New:         newBoltAdapter,
	})
}

const (
	boltFile        = "store.bbolt"
	boltPoolMax     = 512
	boltLockTimeout = 5 * time.Second
)

var boltBucket = []byte("kv")

// boltAdapter builds one bbolt bucket in a few large write transactions and
// reads it from a pool of long-lived read-only transactions (txnStore has
// the life cycle it shares with LMDB).
//
// Build: bbolt fsyncs on every commit (NoSync is off), so Freeze ends with
// the file durable; the file is then reopened ReadOnly.
//
// Read: one read-only transaction per Get would cost a Tx allocation and
// the meta and mmap locks each time, so Gets borrow a pooled transaction
// with its bucket handle instead. The value bbolt returns points into the
// mapping and is copied into dst before the transaction is handed back.
//
// Limits: keys are 1 to 32768 bytes; values up to 2 GiB.
type boltAdapter struct {
	path string
	txnStore[boltReader]
	db     *bolt.DB // the writer, until Freeze
	readDB *bolt.DB // the reader, after Freeze
}

// boltReader is a read-only transaction with its bucket looked up once.
type boltReader struct {
	tx *bolt.Tx
	b  *bolt.Bucket
}

func newBoltAdapter(o engine.Options) (engine.Adapter, error) {
	if err := storeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("bbolt: %w", err)
	}
	a := &boltAdapter{path: filepath.Join(o.Dir, boltFile)}
	a.writeOnce = writeOnce{name: "bbolt", where: a.path}
	a.backend = a
	if err := os.Remove(a.path); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("bbolt: remove stale %s: %w", a.path, err)
	}
	db, err := bolt.Open(a.path, 0o644, &bolt.Options{Timeout: boltLockTimeout})
	if err != nil {
		return nil, fmt.Errorf("bbolt: create %s: %w", a.path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket(boltBucket)
		return err
	}); err != nil {
		return nil, errorsJoinClose(fmt.Errorf("bbolt: create bucket in %s: %w", a.path, err), db)
	}
	a.db = db
	return a, nil
}

func (a *boltAdapter) Name() string { return "bbolt" }

// Set queues a copy of the pair and commits the batch when it is full.
func (a *boltAdapter) Set(key, val []byte) error { return a.set(key, val, boltCheck) }

func boltCheck(key, val []byte) error {
	if len(key) == 0 || len(key) > bolt.MaxKeySize {
		return fmt.Errorf("bbolt: key of %d bytes: %w (bbolt keys are 1 to %d bytes)", len(key), engine.ErrEntryTooLarge, bolt.MaxKeySize)
	}
	if int64(len(val)) > bolt.MaxValueSize {
		return fmt.Errorf("bbolt: value of %d bytes: %w (limit %d)", len(val), engine.ErrEntryTooLarge, bolt.MaxValueSize)
	}
	return nil
}

// commit implements txnBackend: one Update putting every pair.
func (a *boltAdapter) commit(batch *kvBatch) error {
	return a.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		return batch.each(func(k, v []byte) error {
			if err := b.Put(k, v); err != nil {
				return fmt.Errorf("put key %q: %w", truncKey(k), err)
			}
			return nil
		})
	})
}

// closeWriter implements txnBackend.
func (a *boltAdapter) closeWriter() error {
	return closeHandle(&a.db, "bbolt: close writer of "+a.path)
}

// Freeze commits the last batch (fsync), closes the file and reopens it
// read-only.
func (a *boltAdapter) Freeze() error { return a.freeze() }

// openReader implements txnBackend.
func (a *boltAdapter) openReader() (*readerPool[boltReader], error) {
	db, err := bolt.Open(a.path, 0o644, &bolt.Options{ReadOnly: true, Timeout: boltLockTimeout})
	if err != nil {
		return nil, fmt.Errorf("bbolt: open %s read-only: %w", a.path, err)
	}
	a.readDB = db
	return newReaderPool(boltPoolMax,
		func() (boltReader, error) {
			tx, err := db.Begin(false)
			if err != nil {
				return boltReader{}, fmt.Errorf("bbolt: begin read transaction on %s: %w", a.path, err)
			}
			b := tx.Bucket(boltBucket)
			if b == nil {
				_ = tx.Rollback()
				return boltReader{}, fmt.Errorf("bbolt: bucket %q missing in %s", boltBucket, a.path)
			}
			return boltReader{tx: tx, b: b}, nil
		},
		func(r boltReader) { _ = r.tx.Rollback() }), nil
}

// closeReader implements txnBackend.
func (a *boltAdapter) closeReader() error {
	return closeHandle(&a.readDB, "bbolt: close "+a.path)
}

// Get seeks a cursor to key in a pooled transaction; a cursor rather than
// Bucket.Get because Get's nil cannot tell an empty value from a miss.
func (a *boltAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	pool, r, err := a.acquire()
	if err != nil {
		return dst, false, err
	}
	k, v := r.b.Cursor().Seek(key)
	found := k != nil && bytes.Equal(k, key)
	if found {
		dst = append(dst, v...)
	}
	pool.put(r)
	return dst, found, nil
}

// Paths implements engine.FileBacked.
func (a *boltAdapter) Paths() []string { return []string{a.path} }

// Reopen implements engine.FileBacked.
func (a *boltAdapter) Reopen() error { return a.reopen() }

// DuplicatePolicy implements engine.DuplicateKeyer: a second Put of a key replaces its value.
func (a *boltAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.LastWins }

// Config implements engine.Configurer.
func (a *boltAdapter) Config() map[string]string {
	return map[string]string{
		"budget":       "none: holds every entry; Options.Dir holds " + boltFile,
		"bucket":       string(boltBucket) + " (one bucket)",
		"build":        fmt.Sprintf("write transactions of up to %d MiB or %d entries, insertion order, default fill percent; each commit fsyncs; Freeze commits the rest", batchFlushBytes>>20, batchFlushEntries),
		"read":         fmt.Sprintf("reopened ReadOnly; pool of up to %d long-lived read-only transactions; cursor Seek, value copied into dst", boltPoolMax),
		"options":      "defaults (page size = OS page, array freelist, NoSync off)",
		"key_limit":    fmt.Sprintf("1 to %d bytes", bolt.MaxKeySize),
		"duplicates":   "a key set twice keeps the last value",
		"lock_timeout": boltLockTimeout.String(),
	}
}

// Close rolls back the read transactions and closes the file (an
// unfinished build is abandoned, its pending batch dropped).
func (a *boltAdapter) Close() error { return a.close() }

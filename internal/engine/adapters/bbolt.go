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
// reads it from a pool of long-lived read-only transactions.
//
// Build: as for LMDB, Set copies each pair into a pending batch that is
// committed as one transaction at 64 MiB or 256 Ki entries; Freeze commits
// the rest. bbolt fsyncs on every commit (NoSync is off), so Freeze ends
// with the file durable; the file is then reopened ReadOnly.
//
// Read: one read-only transaction per Get would cost a Tx allocation and
// the meta and mmap locks each time (see readerPool), so Gets borrow a
// pooled transaction with its bucket handle instead; the store is frozen,
// so the snapshot never goes stale. The value bbolt returns points into the
// mapping and is copied into dst before the transaction is handed back.
//
// Limits: keys are 1 to 32768 bytes; values up to 2 GiB.
type boltAdapter struct {
	path string

	writeOnce // the build and state changes
	db        *bolt.DB
	batch     kvBatch

	// Read state, replaced only by Freeze, Reopen and Close, which must not
	// run concurrently with Get.
	pool *readerPool[boltReader]
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
func (a *boltAdapter) Set(key, val []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("set"); err != nil {
		return err
	}
	if len(key) == 0 || len(key) > bolt.MaxKeySize {
		return fmt.Errorf("bbolt: key of %d bytes: %w (bbolt keys are 1 to %d bytes)", len(key), engine.ErrEntryTooLarge, bolt.MaxKeySize)
	}
	if int64(len(val)) > bolt.MaxValueSize {
		return fmt.Errorf("bbolt: value of %d bytes: %w (limit %d)", len(val), engine.ErrEntryTooLarge, bolt.MaxValueSize)
	}
	a.batch.add(key, val)
	if a.batch.full() {
		return a.flush()
	}
	return nil
}

// flush commits the pending batch in one transaction; bbolt keeps the
// slices until commit, and the arena is reset only afterwards.
func (a *boltAdapter) flush() error {
	if a.batch.len() == 0 {
		return nil
	}
	err := a.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		return a.batch.each(func(k, v []byte) error {
			if err := b.Put(k, v); err != nil {
				return fmt.Errorf("put key %q: %w", truncKey(k), err)
			}
			return nil
		})
	})
	n := a.batch.len()
	a.batch.reset()
	if err != nil {
		return fmt.Errorf("bbolt: commit %d entries to %s: %w", n, a.path, err)
	}
	return nil
}

// Freeze commits the last batch (fsync), closes the file and reopens it
// read-only.
func (a *boltAdapter) Freeze() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("freeze"); err != nil {
		return err
	}
	if err := a.flush(); err != nil {
		return err
	}
	err := a.db.Close()
	a.db = nil
	if err != nil {
		return fmt.Errorf("bbolt: close writer of %s: %w", a.path, err)
	}
	a.frozen = true
	return a.openRead()
}

func (a *boltAdapter) openRead() error {
	db, err := bolt.Open(a.path, 0o644, &bolt.Options{ReadOnly: true, Timeout: boltLockTimeout})
	if err != nil {
		return fmt.Errorf("bbolt: open %s read-only: %w", a.path, err)
	}
	a.db = db
	a.pool = newReaderPool(boltPoolMax,
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
		func(r boltReader) { _ = r.tx.Rollback() })
	return nil
}

// Get seeks a cursor to key in a pooled transaction; a cursor rather than
// Bucket.Get because Get's nil cannot tell an empty value from a miss.
func (a *boltAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	pool := a.pool
	if pool == nil {
		return dst, false, a.readStateErr("get")
	}
	r, err := pool.get()
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
func (a *boltAdapter) Reopen() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.reopenable() {
		return a.readStateErr("reopen")
	}
	if err := a.closeDB(); err != nil {
		return err
	}
	return a.openRead()
}

func (a *boltAdapter) closeDB() error {
	if a.pool != nil {
		a.pool.closeAll()
		a.pool = nil
	}
	if a.db == nil {
		return nil
	}
	err := a.db.Close()
	a.db = nil
	if err != nil {
		return fmt.Errorf("bbolt: close %s: %w", a.path, err)
	}
	return nil
}

// Config implements engine.Configurer.
// DuplicatePolicy implements engine.DuplicateKeyer: a second Put of a key replaces its value.
func (a *boltAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.LastWins }

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
func (a *boltAdapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.markClosed() {
		return nil
	}
	a.batch = kvBatch{}
	return a.closeDB()
}

package adapters

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "goleveldb",
		Kind:        engine.FileStore,
		Description: "syndtr/goleveldb: LSM tree (pure Go LevelDB), compacted after the build",
		New:         newLevelDBAdapter,
	})
}

const (
	leveldbSubdir    = "leveldb"
	leveldbBloomBits = 10
)

// levelDBAdapter builds a goleveldb database with plain Puts and, at
// Freeze, compacts the whole key range before reopening it read-only.
//
// Why compact: a read-only benchmark should meet the store in its settled
// shape (one sorted run per level, no memtable, no L0 overlap), which is
// what a long-running deployment converges to; leaving the memtable and L0
// files in place would measure the build's leftovers. Compaction also
// makes the build durable: Puts go to the journal without fsync, and the
// compaction writes every entry into level tables that goleveldb fsyncs,
// with an fsynced manifest. Freeze then fsyncs the directory.
//
// Configuration: a 10-bit-per-key Bloom filter (LevelDB's recommended
// setting, so misses do not read data blocks), no compression (the other
// file stores keep values as they are), the default 8 MiB block cache and
// 4 KiB blocks.
type levelDBAdapter struct {
	dir string
	o   opt.Options

	writeOnce // state changes

	// db is the writable database during the build and the read-only one
	// after Freeze; Freeze, Reopen and Close must not run concurrently
	// with Get.
	db *leveldb.DB
}

func newLevelDBAdapter(o engine.Options) (engine.Adapter, error) {
	if err := storeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("goleveldb: %w", err)
	}
	a := &levelDBAdapter{
		writeOnce: writeOnce{name: "goleveldb", where: filepath.Join(o.Dir, leveldbSubdir)},
		dir:       filepath.Join(o.Dir, leveldbSubdir),
		o: opt.Options{
			Filter:             filter.NewBloomFilter(leveldbBloomBits),
			Compression:        opt.NoCompression,
			BlockCacheCapacity: opt.DefaultBlockCacheCapacity,
		},
	}
	if err := os.RemoveAll(a.dir); err != nil {
		return nil, fmt.Errorf("goleveldb: remove stale %s: %w", a.dir, err)
	}
	wo := a.o
	wo.ErrorIfExist = true
	db, err := leveldb.OpenFile(a.dir, &wo)
	if err != nil {
		return nil, fmt.Errorf("goleveldb: create %s: %w", a.dir, err)
	}
	a.db = db
	return a, nil
}

func (a *levelDBAdapter) Name() string { return "goleveldb" }

// Set writes the pair to the journal and memtable (goleveldb copies).
func (a *levelDBAdapter) Set(key, val []byte) error {
	a.mu.Lock()
	err := a.writable("set")
	a.mu.Unlock()
	if err != nil {
		return err
	}
	if err := a.db.Put(key, val, nil); err != nil {
		return fmt.Errorf("goleveldb: put key %q into %s: %w", truncKey(key), a.dir, err)
	}
	return nil
}

// Freeze compacts everything, closes the database and reopens it
// read-only.
func (a *levelDBAdapter) Freeze() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("freeze"); err != nil {
		return err
	}
	if err := a.db.CompactRange(util.Range{}); err != nil {
		return fmt.Errorf("goleveldb: compact %s: %w", a.dir, err)
	}
	err := a.db.Close()
	a.db = nil
	if err != nil {
		return fmt.Errorf("goleveldb: close writer of %s: %w", a.dir, err)
	}
	if err := syncDir(a.dir); err != nil {
		return fmt.Errorf("goleveldb: %w", err)
	}
	a.frozen = true
	return a.openRead()
}

func (a *levelDBAdapter) openRead() error {
	ro := a.o
	ro.ReadOnly = true
	ro.ErrorIfMissing = true
	db, err := leveldb.OpenFile(a.dir, &ro)
	if err != nil {
		return fmt.Errorf("goleveldb: open %s read-only: %w", a.dir, err)
	}
	a.db = db
	return nil
}

// Get appends the value to dst; goleveldb returns a fresh copy of every
// value, so a hit allocates.
func (a *levelDBAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	if !a.frozen || a.db == nil {
		return dst, false, a.readStateErr("get")
	}
	v, err := a.db.Get(key, nil)
	if err != nil {
		if errors.Is(err, leveldb.ErrNotFound) {
			return dst, false, nil
		}
		return dst, false, fmt.Errorf("goleveldb: get key %q from %s: %w", truncKey(key), a.dir, err)
	}
	return append(dst, v...), true, nil
}

// Paths implements engine.FileBacked: every regular file of the database.
func (a *levelDBAdapter) Paths() []string {
	ents, err := os.ReadDir(a.dir)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			paths = append(paths, filepath.Join(a.dir, e.Name()))
		}
	}
	return paths
}

// Reopen implements engine.FileBacked.
func (a *levelDBAdapter) Reopen() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.reopenable() {
		return a.readStateErr("reopen")
	}
	err := a.db.Close()
	a.db = nil
	if err != nil {
		return fmt.Errorf("goleveldb: close %s: %w", a.dir, err)
	}
	return a.openRead()
}

// DuplicatePolicy implements engine.DuplicateKeyer: a later write of a key shadows the earlier one.
func (a *levelDBAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.LastWins }

// Config implements engine.Configurer.
func (a *levelDBAdapter) Config() map[string]string {
	return map[string]string{
		"budget":      "none: holds every entry; Options.Dir/" + leveldbSubdir + " holds the database",
		"build":       "Put per Set without sync (journal + memtable, default 4 MiB write buffer)",
		"freeze":      "CompactRange over all keys (memtable flushed, tables rewritten and fsynced, manifest fsynced), directory fsynced, reopened ReadOnly",
		"filter":      fmt.Sprintf("Bloom filter, %d bits per key", leveldbBloomBits),
		"compression": "none",
		"block_cache": itoa(a.o.GetBlockCacheCapacity()) + " bytes (default LRU)",
		"block_size":  itoa(opt.DefaultBlockSize) + " (default)",
		"duplicates":  "a key set twice keeps the last value",
		"get":         "goleveldb returns a copy; appended to dst",
	}
}

// Close closes the database.
func (a *levelDBAdapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.markClosed() {
		return nil
	}
	return closeHandle(&a.db, "goleveldb: close "+a.dir)
}

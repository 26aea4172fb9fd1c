package adapters

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "mmapstore",
		Kind:        engine.FileStore,
		Description: "cachebench's own mmap file store: 128-byte buckets holding small records inline, zero-copy reads, batched lookups",
		New:         func(o engine.Options) (engine.Adapter, error) { return newMmapstore("mmapstore", o) },
		Public:      "github.com/cachebench/cachebench/mmapstore",
	})
}

const mmapstoreFile = "store.cache"

// mmapstoreAdapter drives internal/engine/mmapstore: Set streams records
// into a Builder, Freeze finishes the file (index, header, fsync, rename,
// directory fsync) and maps it. Get copies the zero-copy value into dst as
// the Adapter contract requires; GetBatch hands the mapped value to fn.
//
// A key set twice keeps the last value (mmapstore.DupLastWins); the
// earlier value is dropped, or stays in the file as a dead record if it
// was too large to sit in the index (Stats dead_records counts both).
type mmapstoreAdapter struct {
	name string // "mmapstore", or a variant's name (mmapstore_vectors.go)
	path string

	writeOnce // the build and state changes
	b         *mmapstore.Builder
	res       mmapstore.BuildResult

	// s is replaced only by Freeze, Reopen and Close, which must not run
	// concurrently with Get (the engine contract).
	s *mmapstore.Store
}

func newMmapstore(name string, o engine.Options) (*mmapstoreAdapter, error) {
	if err := storeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	path := filepath.Join(o.Dir, mmapstoreFile)
	b, err := mmapstore.Create(path, mmapstore.BuildOptions{Duplicates: mmapstore.DupLastWins, SizeHint: o.Entries})
	if err != nil {
		return nil, err
	}
	return &mmapstoreAdapter{writeOnce: writeOnce{name: name, where: path}, name: name, path: path, b: b}, nil
}

func (a *mmapstoreAdapter) Name() string { return a.name }

// Set appends a record to the file being built; it fails after Freeze.
func (a *mmapstoreAdapter) Set(key, val []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("set"); err != nil {
		return err
	}
	return a.b.Add(key, val)
}

// Freeze finishes the file and opens it for reading.
func (a *mmapstoreAdapter) Freeze() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("freeze"); err != nil {
		return err
	}
	res, err := a.b.Finish()
	a.b = nil
	a.frozen = true
	if err != nil {
		return err
	}
	a.res = res
	s, err := mmapstore.Open(a.path)
	if err != nil {
		return err
	}
	a.s = s
	return nil
}

// Get appends the value of key to dst.
func (a *mmapstoreAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	s := a.s
	if s == nil {
		return dst, false, a.readStateErr("get")
	}
	dst, ok := s.GetAppend(dst, key)
	return dst, ok, nil
}

// GetBatch looks keys up with overlapped memory accesses; val is a slice
// of the mapping, valid during the call.
func (a *mmapstoreAdapter) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	s := a.s
	if s == nil {
		return a.readStateErr("get batch")
	}
	s.GetBatch(keys, fn)
	return nil
}

// Paths returns the store file.
func (a *mmapstoreAdapter) Paths() []string { return []string{a.path} }

// Reopen unmaps and maps the file again (header validation only: the
// open cost does not grow with the file).
func (a *mmapstoreAdapter) Reopen() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.reopenable() || a.s == nil {
		return a.readStateErr("reopen")
	}
	if err := a.s.Close(); err != nil {
		return err
	}
	a.s = nil
	s, err := mmapstore.Open(a.path)
	if err != nil {
		return err
	}
	a.s = s
	return nil
}

// Len returns the number of distinct keys (0 before Freeze).
func (a *mmapstoreAdapter) Len() int {
	if s := a.s; s != nil {
		return s.Len()
	}
	return 0
}

// Stats reports the index shape of the frozen file.
func (a *mmapstoreAdapter) Stats() map[string]uint64 {
	h := a.res.Header
	return map[string]uint64{
		"entries":      h.Entries,
		"dead_records": a.res.Shadowed, // values set again later: dropped, or dead records in the file
		"inline":       a.res.Inline,   // keys stored in their index bucket
		"buckets":      h.Buckets,      // home buckets of the index
		"max_probe":    h.MaxProbe,     // in buckets
		"file_bytes":   h.FileSize,
	}
}

// DuplicatePolicy implements engine.DuplicateKeyer: the builder keeps the last value of a key.
func (a *mmapstoreAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.LastWins }

// Config documents the build settings.
func (a *mmapstoreAdapter) Config() map[string]string {
	h := a.res.Header
	c := map[string]string{
		"format_version": itoa(mmapstore.Version),
		"hash":           "cb1: multiply-fold of the key words for keys ≤ 16 bytes, xxh64 above (hash id 1)",
		"bucket_fill":    strconv.FormatFloat(mmapstore.DefaultBucketFill, 'g', -1, 64),
		"inline_max":     itoa(mmapstore.DefaultInlineMax) + " bytes (2 + key + value); larger records in the records section",
		"max_probe_cap":  itoa(mmapstore.DefaultMaxProbe),
		"dedup":          "false",
		"duplicates":     "last wins (the earlier value is dropped, or stays as a dead record if out of line)",
		"reads":          "mmap, zero-copy; Get copies into dst",
	}
	if a.frozen && h.Buckets > 0 {
		c["buckets"] = strconv.FormatUint(h.Buckets, 10)
		c["inline_keys"] = strconv.FormatUint(a.res.Inline, 10)
		c["max_probe"] = strconv.FormatUint(h.MaxProbe, 10) + " buckets"
		c["file_bytes"] = strconv.FormatUint(h.FileSize, 10)
	}
	return c
}

// Close unmaps the file or abandons an unfinished build.
func (a *mmapstoreAdapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.markClosed() {
		return nil
	}
	if a.b != nil {
		a.b.Abort()
		a.b = nil
	}
	if a.s != nil {
		s := a.s
		a.s = nil
		return s.Close()
	}
	return nil
}

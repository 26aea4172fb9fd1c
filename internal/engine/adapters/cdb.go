package adapters

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/colinmarc/cdb"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "cdb",
		Kind:        engine.FileStore,
		Description: "colinmarc/cdb: constant database, written once, read through an mmap'd io.ReaderAt",
		New:         newCDBAdapter,
	})
}

const cdbFile = "store.cdb"

// cdbAdapter builds a CDB file with colinmarc/cdb's Writer and reads it
// through a read-only memory mapping, so that it is compared mmap against
// mmap with the other file stores. colinmarc/cdb only reads through an
// io.ReaderAt and allocates for every probe and value; that is the
// library's cost and is measured as such.
//
// Limits: CDB offsets are 32-bit, so a file holds at most 4 GiB of
// records and index (Set then fails with cdb.ErrTooMuchData). A key set
// twice is stored twice and Get returns the value of the first Set.
type cdbAdapter struct {
	path string
	dir  string

	writeOnce // the build (f, w, n) and state changes
	f         *os.File
	w         *cdb.Writer
	n         int

	// Read state, replaced only by Freeze, Reopen and Close, which must not
	// run concurrently with Get.
	mm *mmapFile
	db *cdb.CDB
}

// noCloseWriteSeeker hides the file's Close from cdb.Writer, whose Close
// would otherwise close the file before we could fsync it.
type noCloseWriteSeeker struct{ f *os.File }

func (w noCloseWriteSeeker) Write(p []byte) (int, error) { return w.f.Write(p) }
func (w noCloseWriteSeeker) Seek(off int64, whence int) (int64, error) {
	return w.f.Seek(off, whence)
}

func newCDBAdapter(o engine.Options) (engine.Adapter, error) {
	if err := storeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("cdb: %w", err)
	}
	path := filepath.Join(o.Dir, cdbFile)
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cdb: create %s: %w", path, err)
	}
	w, err := cdb.NewWriter(noCloseWriteSeeker{f}, nil)
	if err != nil {
		return nil, errorsJoinClose(fmt.Errorf("cdb: start writer on %s: %w", path, err), f)
	}
	return &cdbAdapter{writeOnce: writeOnce{name: "cdb", where: path}, path: path, dir: o.Dir, f: f, w: w}, nil
}

func (a *cdbAdapter) Name() string { return "cdb" }

// Set appends a record to the file being built (cdb.Writer buffers and
// copies); it fails after Freeze.
func (a *cdbAdapter) Set(key, val []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("set"); err != nil {
		return err
	}
	if err := a.w.Put(key, val); err != nil {
		return fmt.Errorf("cdb: put key %q into %s: %w", truncKey(key), a.path, err)
	}
	a.n++
	return nil
}

// Freeze writes the hash tables, fsyncs the file and its directory, and
// maps the file for reading.
func (a *cdbAdapter) Freeze() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("freeze"); err != nil {
		return err
	}
	if err := a.w.Close(); err != nil {
		return fmt.Errorf("cdb: finish %s: %w", a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("cdb: fsync %s: %w", a.path, err)
	}
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("cdb: close %s: %w", a.path, err)
	}
	a.f, a.w = nil, nil
	if err := syncDir(a.dir); err != nil {
		return fmt.Errorf("cdb: %w", err)
	}
	a.frozen = true
	return a.open()
}

// open maps the file and reads the CDB index through the mapping.
func (a *cdbAdapter) open() error {
	mm, err := openMmap(a.path)
	if err != nil {
		return fmt.Errorf("cdb: %w", err)
	}
	db, err := cdb.New(mm, nil)
	if err != nil {
		return errorsJoinClose(fmt.Errorf("cdb: read index of %s: %w", a.path, err), mm)
	}
	a.mm, a.db = mm, db
	return nil
}

// Get appends the value of the first record stored under key.
func (a *cdbAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	db := a.db
	if db == nil {
		return dst, false, a.readStateErr("get")
	}
	v, err := db.Get(key)
	if err != nil {
		return dst, false, fmt.Errorf("cdb: get key %q from %s: %w", truncKey(key), a.path, err)
	}
	if v == nil { // colinmarc/cdb returns a non-nil slice for an empty value
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Paths implements engine.FileBacked.
func (a *cdbAdapter) Paths() []string { return []string{a.path} }

// Reopen implements engine.FileBacked: it unmaps and maps the file again.
func (a *cdbAdapter) Reopen() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.reopenable() {
		return a.readStateErr("reopen")
	}
	a.db = nil
	if err := a.mm.Close(); err != nil {
		return fmt.Errorf("cdb: %w", err)
	}
	a.mm = nil
	return a.open()
}

// DuplicatePolicy implements engine.DuplicateKeyer: CDB stores both records and its lookup stops at the first.
func (a *cdbAdapter) DuplicatePolicy() engine.DuplicatePolicy { return engine.FirstWins }

// Config implements engine.Configurer.
func (a *cdbAdapter) Config() map[string]string {
	return map[string]string{
		"budget":     "none: holds every entry; Options.Dir holds " + cdbFile,
		"write":      "cdb.Writer over the file (the library buffers 64 KiB), then hash tables; Freeze fsyncs the file and directory",
		"read":       "cdb.New over a read-only MAP_SHARED mmap through an io.ReaderAt (copies per probe and value, as the library reads)",
		"hash":       "CDB default (djb hash), 256 tables, linear probing",
		"limit":      "4 GiB per file (32-bit offsets)",
		"duplicates": "a key set twice is stored twice; Get returns the first value",
	}
}

// Close unmaps the file (or abandons an unfinished build) and keeps the
// file for the runner to remove with Options.Dir.
func (a *cdbAdapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.markClosed() {
		return nil
	}
	a.db = nil
	var err error
	if a.f != nil {
		if cerr := a.f.Close(); cerr != nil {
			err = fmt.Errorf("cdb: close unfinished %s: %w", a.path, cerr)
		}
		a.f, a.w = nil, nil
	}
	if a.mm != nil {
		if merr := a.mm.Close(); merr != nil && err == nil {
			err = fmt.Errorf("cdb: %w", merr)
		}
		a.mm = nil
	}
	return err
}

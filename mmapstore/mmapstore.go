// Package mmapstore is cachebench's own write-once key/value file store as
// a library: a file built once from a stream of pairs, then memory-mapped
// read-only and queried with zero-copy lookups.
//
// Build (or Create, Add and Finish) writes a new file to a temporary
// file in the destination's directory, fsyncs it and renames it over the
// destination, so the destination always holds either the old complete
// file or the new one. Open validates the header against the file's real
// size before touching any mapped byte; Store.Verify checks every
// checksum. A lookup hashes the key and usually reads one 128-byte
// bucket: one cache miss. A Holder swaps a rebuilt file in under live
// readers.
//
// A store file must be replaced by rename, never rewritten in place:
// Build renames its temp file over the path, and readers of the old file
// keep its contents. A file truncated or overwritten under a live mapping
// makes a read past its new end fault (SIGBUS), which kills the process.
// Store.CheckFile and Holder.Check (or CheckEvery) compare the file's
// size and modification time with the mapping and report ErrRewritten;
// a Holder then stops serving the file until a Reload.
//
// The types here share their representation with cachebench's internal
// engine, the code its benchmarks measure as "mmapstore", and their
// methods call the engine's; the file format is specified in
// FORMAT.md beside that package (internal/engine/mmapstore in the
// repository).
package mmapstore

import (
	"iter"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// Store is an open, read-only store file. Its methods are safe for
// concurrent use, except Close, which must not run concurrently with any
// other (use a Holder to replace a file under live readers). Get returns
// a slice of the mapping, valid until Close; GetAppend copies into a
// caller's buffer; GetBatch overlaps the memory accesses of many keys;
// Verify checks every checksum; Len, Header and Path describe the file.
type Store mmapstore.Store

// Open maps the store file at path read-only after checking its header
// against the file's size. It does not read the rest of the file, so its
// cost does not depend on the file size; call Store.Verify to check the
// data.
func Open(path string) (*Store, error) {
	s, err := mmapstore.Open(path)
	return (*Store)(s), err
}

// BuildOptions configures a build; the zero value is valid. Duplicates
// chooses what a key added twice does (DupError by default); Dedup stores
// each distinct value once; Seed, MaxLoad, InlineMax, MaxProbe and
// SizeHint tune the layout.
type BuildOptions = mmapstore.BuildOptions

// BuildResult describes a finished file (its path, header and counts).
type BuildResult mmapstore.BuildResult

// Header is a store file's decoded fixed header.
type Header = mmapstore.Header

// Stats are a store file's size statistics, as Store.Inspect gathers them
// (bucket fill, inline and record sizes, the type mix).
type Stats = mmapstore.Stats

// Build writes every pair of seq into a new store file that replaces
// path once complete.
func Build(path string, seq iter.Seq2[[]byte, []byte], opts BuildOptions) (BuildResult, error) {
	r, err := mmapstore.Build(path, seq, opts)
	return BuildResult(r), err
}

// Builder writes a new store file: Add each pair, then Finish (or Abort).
// Large records stream to a temporary file as they are added; the index
// is kept in memory until Finish. A Builder is not safe for concurrent
// use.
type Builder mmapstore.Builder

// Create starts a build whose result will replace path when Finish
// returns successfully.
func Create(path string, opts BuildOptions) (*Builder, error) {
	b, err := mmapstore.Create(path, opts)
	return (*Builder)(b), err
}

// DupPolicy says what a build does with a key added twice.
type DupPolicy = mmapstore.DupPolicy

// Duplicate-key policies.
const (
	// DupError fails the build with a *DuplicateKeyError (the default).
	DupError = mmapstore.DupError
	// DupLastWins keeps the value added last.
	DupLastWins = mmapstore.DupLastWins
)

// DuplicateKeyError reports a key added twice under DupError, with the
// 0-based positions of the two Add calls.
type DuplicateKeyError = mmapstore.DuplicateKeyError

// Holder serves lookups from one file while a newer build of it can be
// swapped in at any time: readers pin the current file with Acquire (and
// Release the Snapshot), Reload publishes a new file atomically, and the
// old one is unmapped when its last reader is done. A failed Reload keeps
// serving the old file.
type Holder mmapstore.Holder

// Snapshot is one reader's reference to the file a Holder serves.
type Snapshot mmapstore.Snapshot

// NewHolder opens the store file at path and serves it.
func NewHolder(path string) (*Holder, error) {
	h, err := mmapstore.NewHolder(path)
	return (*Holder)(h), err
}

// Errors returned (wrapped, with the path) by Open, Verify and builds;
// test them with errors.Is.
var (
	// ErrNotCachebench: the file is not a store file (empty, another
	// format, random bytes).
	ErrNotCachebench = mmapstore.ErrNotCachebench
	// ErrVersion: a store file of a format version this code does not read.
	ErrVersion = mmapstore.ErrVersion
	// ErrCorrupt: a header field, bucket or record is inconsistent with
	// the file (truncated, offsets out of range).
	ErrCorrupt = mmapstore.ErrCorrupt
	// ErrChecksum: a stored checksum does not match the bytes it covers.
	ErrChecksum = mmapstore.ErrChecksum
	// ErrClosed: an operation on a closed Store or Holder.
	ErrClosed = mmapstore.ErrClosed
	// ErrRewritten: the mapped file was truncated or rewritten in place
	// while open (Store.CheckFile, Holder.Check); store files must be
	// replaced by rename, never written over.
	ErrRewritten = mmapstore.ErrRewritten
	// ErrDuplicateKey is matched by *DuplicateKeyError.
	ErrDuplicateKey = mmapstore.ErrDuplicateKey
	// ErrEmptyKey: a build was given an empty key.
	ErrEmptyKey = mmapstore.ErrEmptyKey
	// ErrValue: Builder.AddValue was given a value its type cannot hold.
	ErrValue = mmapstore.ErrValue
)

// Typed values. A store can hold, per key, a value of one of the Types
// (bytes, string, int64, float64, bool, []int64, []float64, []string),
// little-endian and 8-aligned in the file, so that Store.GetFloat64s and
// Store.GetInt64s return slices over the mapping without parsing or
// copying on little-endian hosts. A typed getter asked for a value of
// another type returns an error matching ErrType; it never reinterprets
// the bytes. Build typed values with Builder.AddValue.

// Type is a value's type.
type Type = mmapstore.Type

// The value types.
const (
	TypeBytes    = mmapstore.TypeBytes    // uninterpreted bytes (what Builder.Add stores)
	TypeString   = mmapstore.TypeString   // UTF-8 text
	TypeInt64    = mmapstore.TypeInt64    // 8 bytes, little-endian
	TypeFloat64  = mmapstore.TypeFloat64  // 8 bytes, little-endian IEEE 754
	TypeBool     = mmapstore.TypeBool     // 1 byte, 0 or 1
	TypeInt64s   = mmapstore.TypeInt64s   // n × 8 bytes, 8-aligned
	TypeFloat64s = mmapstore.TypeFloat64s // n × 8 bytes, 8-aligned
	TypeStrings  = mmapstore.TypeStrings  // a count, then length-prefixed strings
)

// Value is a stored value and its type; a Value returned by a Store is a
// slice of the mapping, valid until Close.
type Value mmapstore.Value

// TypeError is a typed read of a value of another type; it matches ErrType.
type TypeError = mmapstore.TypeError

// ErrType: a typed getter was asked for a value of another type.
var ErrType = mmapstore.ErrType

// ValueOf encodes x (a []byte, string, int64, float64, bool, []int64,
// []float64 or []string) as a Value of that type.
func ValueOf(x any) (Value, error) {
	v, err := mmapstore.ValueOf(x)
	return Value(v), err
}

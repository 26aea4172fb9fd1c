package mmapstore

import (
	"context"
	"iter"
	"time"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// The methods below forward to the internal engine's, which the defined
// types of this package (Store, Builder, Holder, Snapshot, Value) share
// their representation with, so that go doc shows them here; each is a
// conversion and a call, inlined where the compiler can.

// GetBatch looks up every key and calls fn(i, val, found) for each, in
// order; val is the value's bytes, a zero-copy slice as for Get. It overlaps the cache
// misses of the keys: the home buckets of the keys a few groups ahead
// are requested before the current key is resolved (see getBatch).
func (s *Store) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) {
	(*mmapstore.Store)(s).GetBatch(keys, fn)
}

// Abort abandons the build and removes the temporary file; the
// destination is untouched. It is safe to call after Finish or an error.
func (b *Builder) Abort() {
	(*mmapstore.Builder)(b).Abort()
}

// Len returns the number of records added so far.
func (b *Builder) Len() int {
	return (*mmapstore.Builder)(b).Len()
}

// Add appends a record of a TypeBytes value. Keys and values may be
// empty; neither is retained.
func (b *Builder) Add(key, val []byte) error {
	return (*mmapstore.Builder)(b).Add(key, val)
}

// AddValue appends a record of a typed value (see ValueOf). A value that its type cannot hold (a string that is
// not UTF-8, a bool other than 0 or 1, a []string that does not decode)
// is refused with ErrValue and nothing is added; the build goes on.
func (b *Builder) AddValue(key []byte, v Value) error {
	return (*mmapstore.Builder)(b).AddValue(key, mmapstore.Value(v))
}

// Finish writes the index and the header, makes the file durable and
// renames it over the destination. On error the destination is untouched
// and the temp file removed.
func (b *Builder) Finish() (BuildResult, error) {
	r, err := (*mmapstore.Builder)(b).Finish()
	return BuildResult(r), err
}

// FinishContext is Finish that gives up with ctx's error if ctx is
// cancelled before the rename: after each step (index, header, fsync)
// and immediately before renaming. The destination then keeps its old
// contents and the temporary file is removed.
func (b *Builder) FinishContext(ctx context.Context) (BuildResult, error) {
	r, err := (*mmapstore.Builder)(b).FinishContext(ctx)
	return BuildResult(r), err
}

// GetChecked is Get that checks every byte it relies on: the checksum of
// each index block it probes and of each records block holding a record
// it decodes (and a referenced value). It returns a value only if all of
// them match; a mismatch is an error matching ErrChecksum, a record that
// does not decode although its block matches, ErrCorrupt. A miss is
// reported only after the buckets that prove it were checked.
func (s *Store) GetChecked(key []byte) ([]byte, bool, error) {
	return (*mmapstore.Store)(s).GetChecked(key)
}

// LookupChecked is Lookup with GetChecked's checks, and it also checks
// the value as Verify does (valid UTF-8 strings, a bool of 0 or 1, a
// []string that decodes): a value it returns is the one that was built,
// of the type it was built with.
func (s *Store) LookupChecked(key []byte) (Value, bool, error) {
	x, ok, err := (*mmapstore.Store)(s).LookupChecked(key)
	return Value(x), ok, err
}

// CheckSample is what plain `cachebench inspect` checks: Open's header
// checks, then for up to n buckets spread evenly over the index, the
// used one at or after each position: every entry's record decodes, a
// lookup of each key ends at its entry, and the index blocks the lookup
// passed and the record's blocks up to the end of its key match their
// checksums. Out-of-line values are not read: --get checks those. The
// cost is n buckets' worth of lookups whatever the file size.
func (s *Store) CheckSample(n int) error {
	return (*mmapstore.Store)(s).CheckSample(n)
}

// Keys returns up to n live keys in index order, each bucket confirmed
// as CheckSample confirms one before its keys are listed (the lookup of
// each key ends at its entry, through index blocks and record bytes up
// to the end of the key that match their checksums), so a damaged key is
// reported as an error instead of listed. It reads only the buckets and
// records it lists, and not the out-of-line values.
func (s *Store) Keys(n int) ([]string, error) {
	return (*mmapstore.Store)(s).Keys(n)
}

// Store returns the snapshot's store.
func (sn *Snapshot) Store() *Store {
	return (*Store)((*mmapstore.Snapshot)(sn).Store())
}

// Release drops the reference; the last one unmaps the file. Release must
// be called exactly once per Acquire.
func (sn *Snapshot) Release() {
	(*mmapstore.Snapshot)(sn).Release()
}

// Acquire pins the current file. It never blocks: if a Reload retires the
// snapshot it loaded, it retries with the new one.
func (h *Holder) Acquire() (*Snapshot, error) {
	sn, err := (*mmapstore.Holder)(h).Acquire()
	return (*Snapshot)(sn), err
}

// GetAppend appends the value of key in the current file to dst.
func (h *Holder) GetAppend(dst, key []byte) ([]byte, bool, error) {
	return (*mmapstore.Holder)(h).GetAppend(dst, key)
}

// Reload opens path and, if that succeeds, makes it the current file. On
// error the previous file keeps serving.
func (h *Holder) Reload(path string) error {
	return (*mmapstore.Holder)(h).Reload(path)
}

// Close stops serving; the current file is unmapped once its readers
// release it. Acquire then fails with ErrClosed.
func (h *Holder) Close() error {
	return (*mmapstore.Holder)(h).Close()
}

// Inspect walks every record and every bucket and returns the file's
// statistics. It reads each byte at most a few times and allocates
// nothing proportional to the file, so it terminates on any file that
// Open accepted; on a corrupt record or bucket it returns what it
// gathered with an ErrCorrupt error.
func (s *Store) Inspect() (Stats, error) {
	return (*mmapstore.Store)(s).Inspect()
}

// Path returns the path the store was opened from.
func (s *Store) Path() string {
	return (*mmapstore.Store)(s).Path()
}

// Header returns the decoded header.
func (s *Store) Header() Header {
	return (*mmapstore.Store)(s).Header()
}

// Len returns the number of keys.
func (s *Store) Len() int {
	return (*mmapstore.Store)(s).Len()
}

// Close unmaps the file. Slices returned by Get become invalid: using one
// afterwards faults. Get on a closed store reports every key missing.
func (s *Store) Close() error {
	return (*mmapstore.Store)(s).Close()
}

// Get returns the bytes of the value stored under key (Value.Bytes: the
// value itself for TypeBytes and TypeString, its little-endian encoding
// for the other types; Lookup says which), as a slice of the mapping
// (zero-copy, read-only: writing to it faults) that is valid until Close.
// The whole key stored in the entry or record is compared, so a corrupt
// bucket can make Get miss but never return another key's value.
func (s *Store) Get(key []byte) ([]byte, bool) {
	return (*mmapstore.Store)(s).Get(key)
}

// Lookup returns the value stored under key with its type, zero-copy as
// Get. Its typed getters (Value.Float64s, ...) and the Store's (GetInt64,
// ...) never reinterpret a value of another type.
func (s *Store) Lookup(key []byte) (Value, bool) {
	x, ok := (*mmapstore.Store)(s).Lookup(key)
	return Value(x), ok
}

// GetAppend appends the value stored under key to dst.
func (s *Store) GetAppend(dst, key []byte) ([]byte, bool) {
	return (*mmapstore.Store)(s).GetAppend(dst, key)
}

// GetInt64 returns the TypeInt64 value of key.
func (s *Store) GetInt64(key []byte) (x int64, found bool, err error) {
	return (*mmapstore.Store)(s).GetInt64(key)
}

// GetFloat64 returns the TypeFloat64 value of key.
func (s *Store) GetFloat64(key []byte) (x float64, found bool, err error) {
	return (*mmapstore.Store)(s).GetFloat64(key)
}

// GetBool returns the TypeBool value of key.
func (s *Store) GetBool(key []byte) (x bool, found bool, err error) {
	return (*mmapstore.Store)(s).GetBool(key)
}

// GetString returns the TypeString value of key as a new Go string;
// Lookup and Value.Text give its bytes without a copy.
func (s *Store) GetString(key []byte) (x string, found bool, err error) {
	return (*mmapstore.Store)(s).GetString(key)
}

// GetInt64s returns the TypeInt64s value of key (see Value.Int64s).
func (s *Store) GetInt64s(key []byte) (xs []int64, found bool, err error) {
	return (*mmapstore.Store)(s).GetInt64s(key)
}

// GetFloat64s returns the TypeFloat64s value of key (see Value.Float64s).
func (s *Store) GetFloat64s(key []byte) (xs []float64, found bool, err error) {
	return (*mmapstore.Store)(s).GetFloat64s(key)
}

// GetStrings returns the TypeStrings value of key as new Go strings.
func (s *Store) GetStrings(key []byte) (xs []string, found bool, err error) {
	return (*mmapstore.Store)(s).GetStrings(key)
}

// Type returns the value's type.
func (v Value) Type() Type {
	return mmapstore.Value(v).Type()
}

// Bytes returns the value's payload as stored (FORMAT.md): the value
// itself for TypeBytes and TypeString, its little-endian encoding for
// the others. It never fails: it is what Get returns.
func (v Value) Bytes() []byte {
	return mmapstore.Value(v).Bytes()
}

// Int64 returns a TypeInt64 value.
func (v Value) Int64() (int64, error) {
	return mmapstore.Value(v).Int64()
}

// Float64 returns a TypeFloat64 value.
func (v Value) Float64() (float64, error) {
	return mmapstore.Value(v).Float64()
}

// Bool returns a TypeBool value; a byte other than 0 or 1 is ErrCorrupt.
func (v Value) Bool() (bool, error) {
	return mmapstore.Value(v).Bool()
}

// Text returns a TypeString value's bytes without copying (read-only,
// valid until Close). Store.GetString copies them into a Go string.
func (v Value) Text() ([]byte, error) {
	return mmapstore.Value(v).Text()
}

// Int64s returns a TypeInt64s value. On a little-endian host it is a
// slice over the mapping, without a copy or an allocation: read-only
// (writing to it faults) and valid until Close. Elsewhere it is decoded
// into a new slice.
func (v Value) Int64s() ([]int64, error) {
	return mmapstore.Value(v).Int64s()
}

// Float64s returns a TypeFloat64s value, in place as Int64s is.
func (v Value) Float64s() ([]float64, error) {
	return mmapstore.Value(v).Float64s()
}

// Strings returns a TypeStrings value as new Go strings. A list whose
// lengths do not add up to its size is ErrCorrupt.
func (v Value) Strings() ([]string, error) {
	return mmapstore.Value(v).Strings()
}

// String formats the value for people: bytes and strings quoted as Go
// strings, numbers as strconv does, lists in brackets separated by
// spaces ("[0.5 1 1.5]"). A payload that does not decode as its type
// prints as "<corrupt ...>". It is what `cachebench inspect --get`
// prints.
func (v Value) String() string {
	return mmapstore.Value(v).String()
}

// MarshalJSON writes the value as the JSON value of its type: a string
// for bytes (as Go converts bytes to a string: invalid UTF-8 becomes
// U+FFFD) and strings, a number, a boolean or an array. NaN and the
// infinities, which JSON numbers cannot carry, are written as the
// strings "NaN", "+Inf" and "-Inf". A payload that does not decode is an
// error.
func (v Value) MarshalJSON() ([]byte, error) {
	return mmapstore.Value(v).MarshalJSON()
}

// Verify checks the whole file: the block table and every block, the
// padding, every record (lengths, value references) and every bucket
// (FORMAT.md lists the rules: each entry's tags are its key's, a lookup
// of its key ends at that entry, each out-of-line entry points to the
// start of a record no other entry points to, the overflow bits, the
// header's counts and max probe). It returns nil or an error matching
// ErrChecksum and/or ErrCorrupt. It reads the mapping sequentially (and
// the index at random, one lookup per record and per entry), allocates
// nothing that grows with the file, and drops the pages of its
// sequential passes behind it, so its resident memory stays bounded.
func (s *Store) Verify() error {
	return (*mmapstore.Store)(s).Verify()
}

// All yields every live entry (those a Get finds) and its value in
// bucket order, as zero-copy slices valid until Close. Records shadowed
// by a later duplicate are not listed. It stops at a bucket or record
// that does not decode; Verify reports it.
func (s *Store) All() iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		for k, v := range (*mmapstore.Store)(s).All() {
			if !yield(k, Value(v)) {
				return
			}
		}
	}
}

// BytesPerEntry is the file size divided by the number of keys (0 for an
// empty store).
func (r *BuildResult) BytesPerEntry() float64 {
	return (*mmapstore.BuildResult)(r).BytesPerEntry()
}

// CheckFile compares the open file with what was mapped: a file now
// shorter than the mapping, or with another modification time, was
// truncated or rewritten in place, and CheckFile returns ErrRewritten
// (reads past the new end would fault). It costs one system call.
func (s *Store) CheckFile() error {
	return (*mmapstore.Store)(s).CheckFile()
}

// VerifyContext is Verify, stopping with ctx's error (wrapped) once ctx
// is cancelled. A file rewritten in place under the mapping makes it
// return ErrRewritten.
func (s *Store) VerifyContext(ctx context.Context) error {
	return (*mmapstore.Store)(s).VerifyContext(ctx)
}

// InspectContext is Inspect, stopping with ctx's error (wrapped) once ctx
// is cancelled. A file rewritten in place gives ErrRewritten.
func (s *Store) InspectContext(ctx context.Context) (Stats, error) {
	return (*mmapstore.Store)(s).InspectContext(ctx)
}

// Check compares the served file with its mapping (Store.CheckFile): if
// it was truncated or rewritten in place, the Holder stops serving it and
// Acquire and GetAppend return the ErrRewritten error until a Reload
// publishes a good file. Readers that already hold a snapshot keep it,
// which is why files must be replaced by rename. It returns the error, or
// nil.
func (h *Holder) Check() error {
	return (*mmapstore.Holder)(h).Check()
}

// CheckEvery runs Check every interval on a goroutine of its own until
// the returned stop is called (or the Holder is closed).
func (h *Holder) CheckEvery(interval time.Duration) (stop func()) {
	return (*mmapstore.Holder)(h).CheckEvery(interval)
}

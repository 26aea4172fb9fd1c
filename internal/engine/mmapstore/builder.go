package mmapstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// DupPolicy says what a build does with a key added twice.
type DupPolicy int

const (
	// DupError fails the build with a *DuplicateKeyError (the default):
	// a cache file built from a data set with repeated keys usually means
	// a bug in the data set, and silently picking one value hides it.
	DupError DupPolicy = iota
	// DupLastWins keeps the value added last; the earlier record stays in
	// the file as a dead record (counted in Header.Records − Entries).
	DupLastWins
)

// ErrValue means AddValue was given a value its type cannot hold.
var ErrValue = errors.New("invalid value")

// Defaults for BuildOptions.
const (
	// DefaultMaxProbe bounds the distance of any key from its home
	// bucket. Random keys stay far below it (a handful of buckets at 1M
	// keys); only keys whose hashes collide on purpose reach it.
	DefaultMaxProbe = 1024
)

// BuildOptions configures a Builder. The zero value is valid.
type BuildOptions struct {
	// Dedup stores each distinct value once: a later record with the same
	// value (compared byte for byte) references the first copy.
	Dedup bool
	// Duplicates chooses what a repeated key does (default DupError).
	Duplicates DupPolicy
	// Seed is mixed into every key's hash; 0 picks a random seed.
	Seed uint64
	// MaxLoad is the share of the buckets' entry bytes the entries
	// fill, in (0.05, 0.9]; 0 means DefaultBucketFill.
	MaxLoad float64
	// InlineMax is the largest entry (2 + key length + value length
	// bytes, at most 111, keys under 128 bytes, values under 256) stored
	// inline in the index; larger records go to the records section. 0
	// means DefaultInlineMax; -1 stores nothing inline.
	InlineMax int
	// MaxProbe is the longest probe sequence a key may need; a build
	// whose keys would exceed it fails with ErrProbeLimit. 0 means
	// DefaultMaxProbe.
	MaxProbe int
	// SizeHint is the expected number of Add calls, if known; it only
	// pre-sizes the in-memory index entries (16 bytes each) and 24 bytes
	// each of room for inline entries, so that they are not copied as
	// they grow.
	SizeHint int

	hashID     uint16 // 0 means HashCB1; tests inject colliding hashes
	blockShift uint16 // 0 means DefaultBlockShift; benchmarks compare sizes
}

// DuplicateKeyError reports a key added twice under DupError. First and
// Second are the 0-based positions of the two Add calls, so a caller that
// remembers where each entry came from can name both input lines.
type DuplicateKeyError struct {
	Key           []byte
	First, Second int64
}

func (e *DuplicateKeyError) Error() string {
	k := e.Key
	if len(k) > 64 {
		k = k[:64]
	}
	return fmt.Sprintf("duplicate key %s (entries %d and %d)", strconv.Quote(string(k)), e.First, e.Second)
}

// Is makes errors.Is(err, ErrDuplicateKey) true.
func (e *DuplicateKeyError) Is(target error) bool { return target == ErrDuplicateKey }

// BuildResult describes a finished file.
type BuildResult struct {
	Path            string
	Header          Header
	DedupRefs       uint64 // records that reference an earlier value
	DedupSavedBytes uint64 // value bytes not written thanks to dedup, minus the references' cost
	Inline          uint64 // keys stored inline in the index
	Shadowed        uint64 // Add calls whose key was added again later (DupLastWins)
}

// BytesPerEntry is the file size divided by the number of keys (0 for
// an empty store).
func (r *BuildResult) BytesPerEntry() float64 {
	if r.Header.Entries == 0 {
		return 0
	}
	return float64(r.Header.FileSize) / float64(r.Header.Entries)
}

// valRef is where an earlier copy of a value lies, for Dedup.
type valRef struct{ off, n uint64 }

// Builder writes a new file. Records too large to sit in a bucket
// stream to a temporary file in the destination's directory as they are
// added; the index entries (16 bytes per key), the inline records' bytes
// (written with the buckets) and, while Finish places them, 40 more
// bytes per key are kept in memory, plus, with Dedup, one map entry per
// distinct value. Finish writes the index and header, fsyncs, renames
// over the destination and fsyncs the directory, so the destination
// always holds either the old complete file or the new complete one.
//
// A Builder is not safe for concurrent use.
type Builder struct {
	path, tmp string
	f         *os.File
	opts      BuildOptions
	hash      func([]byte, uint64) uint64
	buf       []byte
	bufStart  uint64         // file offset of buf[0]
	off       uint64         // file offset of the next record
	blk       *xxhash.Digest // hash of the records block being filled
	blkFill   uint64         // bytes in that block so far
	sums      []uint32       // xxh64 (low 32 bits) of each full records block
	pending   []pendingEntry
	values    map[uint64]valRef
	scratch   []byte
	inline    []byte // the encoded inline entries, in Add order
	records   uint64 // records written to the records section
	res       BuildResult
	err       error // sticky: once set, the build is abandoned
}

// Create starts a build whose result will replace path.
func Create(path string, opts BuildOptions) (*Builder, error) {
	if opts.MaxLoad == 0 {
		opts.MaxLoad = DefaultBucketFill
	}
	switch {
	case opts.InlineMax == 0:
		opts.InlineMax = DefaultInlineMax
	case opts.InlineMax < -1 || opts.InlineMax > bucketRoom:
		return nil, fmt.Errorf("mmapstore: build %s: inline limit %d outside [-1, %d]", path, opts.InlineMax, bucketRoom)
	}
	if !(opts.MaxLoad > 0.05 && opts.MaxLoad <= 0.9) {
		return nil, fmt.Errorf("mmapstore: build %s: max load %v outside (0.05, 0.9]", path, opts.MaxLoad)
	}
	if opts.MaxProbe == 0 {
		opts.MaxProbe = DefaultMaxProbe
	}
	if opts.MaxProbe < 1 {
		return nil, fmt.Errorf("mmapstore: build %s: max probe %d must be positive", path, opts.MaxProbe)
	}
	if opts.Duplicates != DupError && opts.Duplicates != DupLastWins {
		return nil, fmt.Errorf("mmapstore: build %s: unknown duplicate policy %d", path, opts.Duplicates)
	}
	for opts.Seed == 0 {
		opts.Seed = rand.Uint64()
	}
	b := &Builder{path: path, opts: opts, blk: xxhash.New(), buf: make([]byte, 0, writeBufSize)}
	b.hash = hashKey
	if opts.hashID == 0 {
		b.opts.hashID = HashCB1
	} else if opts.hashID != HashCB1 {
		fn, ok := testHashes[opts.hashID]
		if !ok {
			return nil, fmt.Errorf("mmapstore: build %s: unknown hash id %d", path, opts.hashID)
		}
		b.hash = fn
	}
	if b.opts.blockShift == 0 {
		b.opts.blockShift = DefaultBlockShift
	}
	if opts.SizeHint > 0 {
		b.pending = make([]pendingEntry, 0, min(opts.SizeHint, 1<<30))
		// Room for short inline entries (key_%d → val_%d take 22 bytes),
		// so that the arena is not copied as it grows.
		b.inline = make([]byte, 0, min(opts.SizeHint, 1<<30)*24)
	}
	if opts.Dedup {
		b.values = make(map[uint64]valRef)
	}
	dir := filepath.Dir(path)
	if err := checkDestination(path, dir); err != nil {
		return nil, fmt.Errorf("mmapstore: build %s: %w", path, err)
	}
	f, tmp, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("mmapstore: build %s: %w: %w", path, ErrDestination, err)
	}
	b.f, b.tmp = f, tmp
	// The header is written last; until then the temp file starts with
	// zeros, which Open rejects as not ours.
	b.buf = b.buf[:HeaderSize]
	clear(b.buf)
	b.off = HeaderSize
	return b, nil
}

// Build writes every pair of seq into a new file at path.
func Build(path string, seq iter.Seq2[[]byte, []byte], opts BuildOptions) (BuildResult, error) {
	b, err := Create(path, opts)
	if err != nil {
		return BuildResult{}, err
	}
	for k, v := range seq {
		if err := b.Add(k, v); err != nil {
			b.Abort()
			return BuildResult{}, err
		}
	}
	return b.Finish()
}

// fail records the first error, removes the temp file and returns err.
func (b *Builder) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	b.cleanup()
	return err
}

func (b *Builder) cleanup() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
	if b.tmp != "" {
		os.Remove(b.tmp)
		b.tmp = ""
	}
	b.pending, b.values, b.buf, b.inline = nil, nil, nil, nil
}

// Abort abandons the build and removes the temporary file; the
// destination is untouched. It is safe to call after Finish or an error.
func (b *Builder) Abort() {
	if b.err == nil {
		b.err = fmt.Errorf("mmapstore: build %s: aborted", b.path)
	}
	b.cleanup()
}

// Len returns the number of records added so far.
func (b *Builder) Len() int { return len(b.pending) }

// Add appends a record of a TypeBytes value. Keys and values may be
// empty; neither is retained.
func (b *Builder) Add(key, val []byte) error { return b.add(key, TypeBytes, val) }

// AddValue appends a record of a typed value (see the Value
// constructors). A value that its type cannot hold (a string that is
// not UTF-8, a bool other than 0 or 1, a []string that does not decode)
// is refused with ErrValue and nothing is added; the build goes on.
func (b *Builder) AddValue(key []byte, v Value) error {
	if err := checkValue(v.typ, v.b); err != nil {
		return fmt.Errorf("mmapstore: build %s: key %q: %w: %w", b.path, clip(key), ErrValue, err)
	}
	return b.add(key, v.typ, v.b)
}

func (b *Builder) add(key []byte, t Type, val []byte) error {
	if b.err != nil {
		return b.err
	}
	if n := inlineSize(len(key), len(val), t); n > 0 && n <= b.opts.InlineMax {
		b.pending = append(b.pending, pendingEntry{hash: b.hash(key, b.opts.Seed), off: inlineFlag | uint64(len(b.inline))})
		b.inline = appendInline(b.inline, key, t, val)
		return nil
	}
	recOff := b.off
	ref, dedup := false, false
	var vr valRef
	var vh uint64
	if b.values != nil && len(val) > 0 {
		vh = xxhash.Sum64(val)
		if r, ok := b.values[vh]; ok && r.n == uint64(len(val)) && uvarintLen(r.off) < len(val) && (!t.aligned() || r.off%valueAlign == 0) {
			same, err := b.sameBytes(r.off, val)
			if err != nil {
				return b.fail(err)
			}
			ref, vr = same, r
		} else if !ok {
			dedup = true
		}
	}
	start := len(b.buf)
	b.buf = appendRecordHeader(b.buf, len(key), len(val), t, ref, vr.off)
	b.buf = append(b.buf, key...)
	if ref {
		b.res.DedupRefs++
		b.res.DedupSavedBytes += uint64(len(val) - uvarintLen(vr.off))
	} else {
		valOff := recOff + uint64(len(b.buf)-start)
		if t.aligned() {
			pad := alignUp(valOff, valueAlign) - valOff
			b.buf = append(b.buf, make([]byte, pad)...)
			valOff += pad
		}
		if dedup {
			b.values[vh] = valRef{off: valOff, n: uint64(len(val))}
		}
		b.buf = append(b.buf, val...)
	}
	b.off += uint64(len(b.buf) - start)
	if b.off > MaxFileSize/2 {
		return b.fail(fmt.Errorf("mmapstore: build %s: records exceed %d bytes: %w", b.path, uint64(MaxFileSize/2), ErrTooLarge))
	}
	b.pending = append(b.pending, pendingEntry{hash: b.hash(key, b.opts.Seed), off: recOff})
	b.records++
	if len(b.buf) >= writeBufSize {
		if err := b.flush(); err != nil {
			return b.fail(err)
		}
	}
	return nil
}

// Finish writes the index and the header, makes the file durable and
// renames it over the destination. On error the destination is untouched
// and the temp file removed.
func (b *Builder) Finish() (BuildResult, error) {
	return b.FinishContext(context.Background())
}

// FinishContext is Finish that gives up with ctx's error if ctx is
// cancelled before the rename: after each step (index, header, fsync)
// and immediately before renaming. The destination then keeps its old
// contents and the temporary file is removed.
func (b *Builder) FinishContext(ctx context.Context) (BuildResult, error) {
	if b.err != nil {
		return BuildResult{}, b.err
	}
	res, err := b.finish(ctx)
	if err != nil {
		return BuildResult{}, b.fail(err)
	}
	b.err = fmt.Errorf("mmapstore: build %s: already finished", b.path)
	b.pending, b.values, b.buf, b.inline = nil, nil, nil, nil
	return res, nil
}

func (b *Builder) finish(ctx context.Context) (BuildResult, error) {
	wrap := func(err error) error { return fmt.Errorf("mmapstore: build %s: %w", b.path, err) }
	interrupted := func() error {
		if err := ctx.Err(); err != nil {
			return wrap(fmt.Errorf("interrupted: %w", err))
		}
		return nil
	}
	recEnd := b.off
	idxOff := alignUp(recEnd, bucketSize)
	if err := b.flush(); err != nil {
		return BuildResult{}, err
	}
	h, err := b.writeBuckets(recEnd, idxOff, interrupted)
	if err != nil {
		return BuildResult{}, err
	}
	if err := interrupted(); err != nil {
		return BuildResult{}, err
	}
	idxEnd := idxOff + h.IndexLength
	h.Version = Version
	h.HashID = b.opts.hashID
	h.BlockShift = b.opts.blockShift
	h.Seed = b.opts.Seed
	h.RecordsOffset = HeaderSize
	h.RecordsLength = recEnd - HeaderSize
	h.IndexOffset = idxOff
	h.BlockTableOff = idxEnd
	h.FileSize = idxEnd + uint64(len(b.sums))*blockSumSize
	if b.opts.Dedup {
		h.Flags |= FlagDedup
	}
	// The stored block sums are keyed by the header (see blockKey), so
	// the header must be final, bar the table's own checksum, first.
	var hb0 [HeaderSize]byte
	h.encode(hb0[:])
	key := blockKeySeed(hb0[:])
	tbl := make([]byte, 0, len(b.sums)*blockSumSize)
	for i, sum := range b.sums {
		tbl = binary.LittleEndian.AppendUint32(tbl, sum^blockKey(key, uint64(i)))
	}
	h.BlockTableSum = xxhash.Sum64(tbl)
	if _, err := b.f.Write(tbl); err != nil {
		return BuildResult{}, wrap(err)
	}
	var hb [HeaderSize]byte
	h.encode(hb[:])
	if _, err := b.f.WriteAt(hb[:], 0); err != nil {
		return BuildResult{}, wrap(err)
	}
	if err := b.f.Chmod(0o644); err != nil {
		return BuildResult{}, wrap(err)
	}
	if err := b.f.Sync(); err != nil {
		return BuildResult{}, wrap(fmt.Errorf("fsync %s: %w", b.tmp, err))
	}
	if err := interrupted(); err != nil {
		return BuildResult{}, err
	}
	// An anonymous temp file (O_TMPFILE) gets a name only now, just
	// before the rename, so a build killed earlier leaves nothing behind.
	if b.tmp == "" {
		name, err := linkTemp(b.f, filepath.Dir(b.path), filepath.Base(b.path))
		if err != nil {
			return BuildResult{}, wrap(err)
		}
		b.tmp = name
	}
	if err := b.f.Close(); err != nil {
		b.f = nil
		return BuildResult{}, wrap(err)
	}
	b.f = nil
	if err := interrupted(); err != nil {
		return BuildResult{}, err
	}
	if err := os.Rename(b.tmp, b.path); err != nil {
		return BuildResult{}, wrap(err)
	}
	b.tmp = ""
	if err := syncDir(filepath.Dir(b.path)); err != nil {
		// The new file is in place; only its durability across a power
		// failure is in doubt, which the caller should hear about.
		return BuildResult{}, wrap(fmt.Errorf("fsync directory: %w", err))
	}
	b.res.Path = b.path
	b.res.Header = h
	return b.res, nil
}

// syncDir fsyncs a directory so that a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

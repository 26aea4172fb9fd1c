package mmapstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"time"
)

// Store is an open, read-only cachebench file. Its methods are safe for
// concurrent use, except Close, which must not run concurrently with any
// other method (use a Holder to swap files under live readers).
type Store struct {
	path     string
	hdr      Header
	data     []byte // the whole mapping
	recs     []byte // data[:end of records]: recs[off] is the byte at file offset off
	index    []byte // the buckets
	buckets  uint64 // home buckets
	maxProbe uint64
	seed     uint64
	hashID   uint16
	dedup    bool
	mapped   bool
	blk      blocks // the block checksums
	// file is the mapped file, kept open so that CheckFile can fstat
	// the very inode that is mapped (the path may name a newer file);
	// size and mtime are what it was when mapped. nil for a store not
	// opened from a file.
	file  *os.File
	size  int64
	mtime time.Time
}

// Open maps the file at path read-only after validating its header
// against the file's real size. It reads the header with pread and checks
// it before any mapped byte is touched, and it never reads the rest of the
// file, so its cost does not depend on the file size. Open does not check
// section checksums: call Verify for that.
//
// The mapping stays valid while the Store is open. cachebench never
// modifies a published file (it replaces it by rename), so readers keep
// the old contents. A store file must never be rewritten in place (cp over
// it, truncate, write into it) while a Store or Holder has it open: a read
// of the mapping past the end of a shrunken file faults (SIGBUS), which
// no mmap reader can prevent. CheckFile (and Holder.Check) detect such a
// rewrite from the file's size and modification time; Verify and Inspect
// turn a fault into an ErrRewritten error.
func Open(path string) (_ *Store, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mmapstore: open: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("mmapstore: open %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("mmapstore: open %s: %w: not a regular file", path, ErrNotCachebench)
	}
	var hb [HeaderSize]byte
	n, err := f.ReadAt(hb[:], 0)
	if err != nil && n < HeaderSize && n != int(min(fi.Size(), HeaderSize)) {
		return nil, fmt.Errorf("mmapstore: open %s: read header: %w", path, err)
	}
	h, err := parseHeader(hb[:n], fi.Size())
	if err != nil {
		return nil, fmt.Errorf("mmapstore: open %s: %w", path, err)
	}
	data, mapped, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("mmapstore: open %s: map: %w", path, err)
	}
	s := newStore(path, h, data, mapped)
	s.initBlocks(hb[:])
	s.file, s.size, s.mtime = f, fi.Size(), fi.ModTime()
	return s, nil
}

// CheckFile compares the open file with what was mapped, by fstat of the
// descriptor Open kept: a file now shorter than the mapping, or with
// another modification time, was truncated or rewritten in place, and
// CheckFile returns ErrRewritten (reads past the new end would fault).
// It costs one system call; Holder.Check calls it for a Holder's file.
func (s *Store) CheckFile() error {
	if s.file == nil {
		return nil
	}
	fi, err := s.file.Stat()
	if err != nil {
		return fmt.Errorf("mmapstore: check %s: %w", s.path, err)
	}
	switch {
	case fi.Size() < s.size:
		return fmt.Errorf("mmapstore: %s: %w: %d bytes mapped, the file now has %d", s.path, ErrRewritten, s.size, fi.Size())
	case fi.Size() != s.size || !fi.ModTime().Equal(s.mtime):
		return fmt.Errorf("mmapstore: %s: %w: modified at %s, mapped as of %s", s.path, ErrRewritten, fi.ModTime().Format(time.RFC3339Nano), s.mtime.Format(time.RFC3339Nano))
	}
	return nil
}

// faultToError turns a fault of a read of the mapping (the file shrank
// under it: SIGBUS, a panic under debug.SetPanicOnFault) into an
// ErrRewritten error in *err; any other panic goes on. Deferred by the
// long passes (Verify, Inspect) after debug.SetPanicOnFault(true).
func (s *Store) faultToError(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(interface{ Addr() uintptr }); !ok {
		panic(r)
	}
	*err = fmt.Errorf("mmapstore: %s: %w: a read of the mapping faulted (%v)", s.path, ErrRewritten, r)
}

// newStore wires a validated header to the file's bytes.
func newStore(path string, h Header, data []byte, mapped bool) *Store {
	return &Store{
		path:     path,
		hdr:      h,
		data:     data,
		recs:     data[:h.RecordsOffset+h.RecordsLength],
		index:    data[h.IndexOffset : h.IndexOffset+h.IndexLength],
		maxProbe: h.MaxProbe,
		seed:     h.Seed,
		hashID:   h.HashID,
		dedup:    h.Flags&FlagDedup != 0,
		mapped:   mapped,
		buckets:  h.Buckets,
	}
}

// Path returns the path the store was opened from.
func (s *Store) Path() string { return s.path }

// Header returns the decoded header.
func (s *Store) Header() Header { return s.hdr }

// Len returns the number of keys.
func (s *Store) Len() int { return int(s.hdr.Entries) }

// Close unmaps the file. Slices returned by Get become invalid: using one
// afterwards faults. Get on a closed store reports every key missing.
func (s *Store) Close() error {
	data, mapped := s.data, s.mapped
	s.data, s.recs, s.index, s.maxProbe, s.buckets, s.mapped = nil, nil, nil, 0, 0, false
	if data == nil {
		return nil
	}
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	if mapped {
		if err := unmap(data); err != nil {
			return fmt.Errorf("mmapstore: close %s: %w", s.path, err)
		}
	}
	return nil
}

// hash hashes key with the file's hash function. The branch on the id is
// always predicted; tests register colliding hash functions under ids a
// production build rejects.
func (s *Store) hash(key []byte) uint64 {
	if s.hashID == HashCB1 {
		return hashKey(key, s.seed)
	}
	// A copy: a call through a function value makes its arguments
	// escape, and key must not (a caller's key on its stack would then be
	// moved to the heap on every lookup).
	return testHashes[s.hashID](bytes.Clone(key), s.seed)
}

// Get returns the bytes of the value stored under key (Value.Bytes: the
// value itself for TypeBytes and TypeString, its little-endian encoding
// for the other types; Lookup says which), as a slice of the mapping
// (zero-copy, read-only: writing to it faults) that is valid until Close.
// The whole key stored in the entry or record is compared, so a corrupt
// bucket can make Get miss but never return another key's value.
func (s *Store) Get(key []byte) ([]byte, bool) {
	v, _, _, ok := s.find(key, s.hash(key))
	return v.b, ok
}

// Lookup returns the value stored under key with its type, zero-copy as
// Get. Its typed getters (Value.Float64s, ...) and the Store's (GetInt64,
// ...) never reinterpret a value of another type.
func (s *Store) Lookup(key []byte) (Value, bool) {
	v, _, _, ok := s.find(key, s.hash(key))
	return v, ok
}

// GetAppend appends the value stored under key to dst.
func (s *Store) GetAppend(dst, key []byte) ([]byte, bool) {
	v, ok := s.Get(key)
	if !ok {
		return dst, false
	}
	return append(dst, v...), true
}

// find is the lookup: it scans the home bucket and, while a bucket's
// overflow bit says that keys passing it live further on, the following
// ones, at most maxProbe buckets. It returns the value, the bucket and
// the entry's number in it. Every position and length read from a bucket
// is checked against the bucket's bounds, and every type byte against
// the size of its value (Type.fits), so a corrupt bucket makes a lookup
// miss but never read outside it or return a value of an impossible
// shape; the whole key is compared.
func (s *Store) find(key []byte, h uint64) (val Value, b uint64, slot int, ok bool) {
	b = homeBucket(h, s.buckets)
	t := bucketTag(h)
	kl := len(key)
	for n := s.maxProbe; n > 0; n, b = n-1, b+1 {
		bk := s.bucket(b)
		fl := bk[bucketFlags]
		for m := tagMatches(binary.LittleEndian.Uint64(bk[:8]), t); m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m) >> 3
			p := int(bk[8+i])
			if p < bucketData || p > bucketFlags-2 {
				continue
			}
			e := int(bk[p])
			if e < 0x80 {
				w, q, typ := int(bk[p+1]), p+2, TypeBytes
				if w&inlineTyped != 0 {
					w &= inlineLenMask
					typ = Type(bk[q]) // q ≤ bucketFlags: in the bucket
					q++
					if !inlineType(typ, w) {
						continue
					}
				}
				end := q + e + w
				if e == kl && end <= bucketFlags && string(bk[q:q+e]) == string(key) {
					return Value{typ, bk[q+e : end : end]}, b, i, true
				}
				continue
			}
			if p > bucketFlags-outEntrySize || uint16(e&0x7f)<<8|uint16(bk[p+1]) != outTag(h) {
				continue
			}
			off := uint64(binary.LittleEndian.Uint16(bk[p+2:])) | uint64(binary.LittleEndian.Uint32(bk[p+4:]))<<16
			if v, ok := s.match(key, off); ok {
				return v, b, i, true
			}
		}
		if fl&bucketOverflow == 0 {
			break
		}
	}
	return Value{}, 0, 0, false
}

// match returns the record's value if the record at off holds key. The
// common record (key < 128 bytes, an untyped value < 32 bytes held in
// the record) is decoded here without a call; anything else takes the
// general decoder.
func (s *Store) match(key []byte, off uint64) (Value, bool) {
	recs := s.recs
	if off < HeaderSize || off > uint64(len(recs))-2 {
		return Value{}, false
	}
	b := recs[off:]
	kl, w := uint64(b[0]), uint64(b[1])
	if kl&0x80|w&(0x80|valTypedBit|valRefBit) != 0 { // a multi-byte varint, a type byte or a reference
		return s.matchSlow(key, off)
	}
	if kl != uint64(len(key)) {
		return Value{}, false
	}
	end := 2 + kl + w>>valLenShift
	if end > uint64(len(b)) {
		return Value{}, false
	}
	if string(b[2:2+kl]) != string(key) {
		return Value{}, false
	}
	return Value{TypeBytes, b[2+kl : end : end]}, true
}

// matchSlow is match for any record layout.
func (s *Store) matchSlow(key []byte, off uint64) (Value, bool) {
	r, ok := decodeRecord(s.recs, off, s.dedup)
	if !ok || r.keyLen != uint64(len(key)) || string(s.recs[r.keyOff:r.keyOff+r.keyLen]) != string(key) {
		return Value{}, false
	}
	return r.value(s.recs), true
}

package mmapstore

import (
	"encoding/binary"
	"fmt"
	"os"
)

// Store is an open, read-only cachebench file. Its methods are safe for
// concurrent use, except Close, which must not run concurrently with any
// other method (use a Holder to swap files under live readers).
type Store struct {
	path     string
	hdr      Header
	data     []byte // the whole mapping
	recs     []byte // data[:end of records]: recs[off] is the byte at file offset off
	index    []byte // the slot array (versions 1, 2) or the buckets (version 3)
	mask     uint64 // Slots - 1 (versions 1, 2)
	buckets  uint64 // home buckets (version 3), 0 for older versions
	maxProbe uint64
	seed     uint64
	hashID   uint16
	dedup    bool
	mapped   bool
	blk      blocks // version 2 block checksums
}

// Open maps the file at path read-only after validating its header
// against the file's real size. It reads the header with pread and checks
// it before any mapped byte is touched, and it never reads the rest of the
// file, so its cost does not depend on the file size. Open does not check
// section checksums: call Verify for that.
//
// The mapping stays valid while the Store is open. cachebench never
// modifies a published file (it replaces it by rename), so readers keep
// the old contents; a file truncated in place by someone else while mapped
// can still fault (SIGBUS) on access, which no mmap reader can prevent.
func Open(path string) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mmapstore: open: %w", err)
	}
	defer f.Close()
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
	return s, nil
}

// newStore wires a validated header to the file's bytes.
func newStore(path string, h Header, data []byte, mapped bool) *Store {
	var buckets uint64
	if h.Version == Version {
		buckets = h.Slots
	}
	return &Store{
		path:     path,
		hdr:      h,
		data:     data,
		recs:     data[:h.RecordsOffset+h.RecordsLength],
		index:    data[h.IndexOffset : h.IndexOffset+h.IndexLength],
		mask:     h.Slots - 1,
		maxProbe: h.MaxProbe,
		seed:     h.Seed,
		hashID:   h.HashID,
		dedup:    h.Flags&FlagDedup != 0,
		mapped:   mapped,
		buckets:  buckets,
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
	s.data, s.recs, s.index, s.maxProbe, s.mask, s.mapped = nil, nil, nil, 0, 0, false
	s.buckets = 0
	if data == nil {
		return nil
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
	return testHashes[s.hashID](key, s.seed)
}

// Get returns the value stored under key, as a slice of the mapping
// (zero-copy, read-only: writing to it faults) that is valid until Close.
// The whole key stored in the record is compared, so a corrupt slot can
// make Get miss but never return another key's value.
func (s *Store) Get(key []byte) ([]byte, bool) {
	if s.buckets != 0 {
		v, _, _, ok := s.find3(key, s.hash(key))
		return v, ok
	}
	return s.lookup(key, s.hash(key))
}

// GetAppend appends the value stored under key to dst.
func (s *Store) GetAppend(dst, key []byte) ([]byte, bool) {
	v, ok := s.Get(key)
	if !ok {
		return dst, false
	}
	return append(dst, v...), true
}

// lookup probes at most maxProbe slots from the key's home slot.
func (s *Store) lookup(key []byte, h uint64) ([]byte, bool) {
	tag := h >> offsetBits
	i := h & s.mask
	idx := s.index
	for n := s.maxProbe; n > 0; n-- {
		v := binary.LittleEndian.Uint64(idx[i*slotSize:])
		if v == 0 {
			return nil, false
		}
		if v>>offsetBits == tag {
			if val, ok := s.match(key, v&offsetMask); ok {
				return val, true
			}
		}
		i = (i + 1) & s.mask
	}
	return nil, false
}

// match returns the record's value if the record at off holds key. The
// common record (key < 128 bytes, value < 64 bytes, inline) is decoded
// here without a call; anything else takes the general decoder.
func (s *Store) match(key []byte, off uint64) ([]byte, bool) {
	recs := s.recs
	if off < HeaderSize || off > uint64(len(recs))-2 {
		return nil, false
	}
	b := recs[off:]
	kl, w := uint64(b[0]), uint64(b[1])
	if kl&0x80|w&0x81 != 0 { // a multi-byte varint or a reference
		return s.matchSlow(key, off)
	}
	if kl != uint64(len(key)) {
		return nil, false
	}
	end := 2 + kl + w>>1
	if end > uint64(len(b)) {
		return nil, false
	}
	if string(b[2:2+kl]) != string(key) {
		return nil, false
	}
	return b[2+kl : end : end], true
}

// matchSlow is match for any record layout.
func (s *Store) matchSlow(key []byte, off uint64) ([]byte, bool) {
	r, ok := decodeRecord(s.recs, off, s.dedup)
	if !ok || r.keyLen != uint64(len(key)) || string(s.recs[r.keyOff:r.keyOff+r.keyLen]) != string(key) {
		return nil, false
	}
	end := r.valOff + r.valLen
	return s.recs[r.valOff:end:end], true
}

// batchChunk is how many keys GetBatch processes per step: enough
// independent loads to keep the memory system busy, few enough that the
// per-chunk arrays stay on the stack.
const batchChunk = 32

// GetBatch looks up every key and calls fn(i, val, found) for each, in
// order; val is a zero-copy slice as for Get. It overlaps the cache misses
// of a chunk of keys: in a version-3 file every home bucket is loaded
// before any key is resolved; in older files every home slot is loaded,
// then the first byte of every candidate record is touched, and only
// then is each key resolved.
func (s *Store) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) {
	if s.buckets != 0 {
		s.getBatch3(keys, fn)
		return
	}
	var hs, vs [batchChunk]uint64
	for base := 0; base < len(keys); base += batchChunk {
		ks := keys[base:min(base+batchChunk, len(keys))]
		for i, k := range ks {
			hs[i] = s.hash(k)
		}
		if s.maxProbe == 0 {
			for i := range ks {
				fn(base+i, nil, false)
			}
			continue
		}
		idx, mask := s.index, s.mask
		for i := range ks {
			vs[i] = binary.LittleEndian.Uint64(idx[(hs[i]&mask)*slotSize:])
		}
		var sink byte
		recs := s.recs
		for i := range ks {
			v := vs[i]
			if v != 0 && v>>offsetBits == hs[i]>>offsetBits {
				if off := v & offsetMask; off < uint64(len(recs)) {
					sink += recs[off]
				}
			}
		}
		keep(sink)
		for i, k := range ks {
			v, h := vs[i], hs[i]
			switch {
			case v == 0:
				fn(base+i, nil, false)
			case v>>offsetBits == h>>offsetBits:
				if val, ok := s.match(k, v&offsetMask); ok {
					fn(base+i, val, true)
					continue
				}
				fallthrough
			default:
				val, ok := s.lookup(k, h)
				fn(base+i, val, ok)
			}
		}
	}
}

// keep stops the compiler from discarding the record-touching loads in
// GetBatch, whose only purpose is to start the cache misses early.
//
//go:noinline
func keep(byte) {}

package mmapstore

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// blockKeySeed derives the key of a file's block sums from its header
// bytes 0..103 (every field but the block table's checksum and offset
// and the header checksum). A header edited and re-checksummed (a changed
// seed, max probe or count) then fails every block check, so even a
// lookup that reads one block notices it.
func blockKeySeed(hdr []byte) uint64 { return xxhash.Sum64(hdr[:104]) }

// blockKey is the mask XORed into the stored sum of block i; it also
// makes two swapped blocks fail their checks.
func blockKey(seed, i uint64) uint32 { return uint32(mix(seed^i^mixK2, mixK3)) }

// blocks is a file's block table, ready for checks.
type blocks struct {
	shift uint16
	nRec  uint64 // records blocks come first in the table, then index blocks
	key   uint64
	table []byte
}

func (s *Store) initBlocks(hb []byte) {
	nr, _ := s.hdr.blockCounts()
	s.blk.shift = s.hdr.BlockShift
	s.blk.nRec = nr
	s.blk.key = blockKeySeed(hb)
	s.blk.table = s.data[s.hdr.BlockTableOff:s.hdr.FileSize]
}

// checkBlock checks block g of the table (records blocks, then index).
func (s *Store) checkBlock(g uint64) error {
	bs := uint64(1) << s.blk.shift
	var start, end uint64
	if g < s.blk.nRec {
		start = s.hdr.RecordsOffset + g*bs
		end = min(start+bs, s.hdr.RecordsOffset+s.hdr.RecordsLength)
	} else {
		start = s.hdr.IndexOffset + (g-s.blk.nRec)*bs
		end = min(start+bs, s.hdr.IndexOffset+s.hdr.IndexLength)
	}
	want := binary.LittleEndian.Uint32(s.blk.table[g*blockSumSize:]) ^ blockKey(s.blk.key, g)
	if got := uint32(xxhash.Sum64(s.data[start:end])); got != want {
		what := "records"
		if g >= s.blk.nRec {
			what = "index"
		}
		return fmt.Errorf("%w: %s block at offset %d (%d bytes) has checksum %#08x, stored %#08x", ErrChecksum, what, start, end-start, got, want)
	}
	return nil
}

// checkRecordBytes checks every records block overlapping [off, end).
func (s *Store) checkRecordBytes(off, end uint64) error {
	if end <= off {
		end = off + 1
	}
	base := s.hdr.RecordsOffset
	for g := (off - base) >> s.blk.shift; g <= (end-1-base)>>s.blk.shift && g < s.blk.nRec; g++ {
		if err := s.checkBlock(g); err != nil {
			return err
		}
	}
	return nil
}

// checkIndexBytes checks every index block overlapping [lo, hi), offsets
// counted from the start of the index; last caches the last block
// checked, so that a probe over neighbouring buckets hashes each block
// once.
func (s *Store) checkIndexBytes(lo, hi uint64, last *uint64) error {
	for g := lo >> s.blk.shift; g <= (hi-1)>>s.blk.shift; g++ {
		if g+s.blk.nRec == *last {
			continue
		}
		if err := s.checkBlock(s.blk.nRec + g); err != nil {
			return err
		}
		*last = s.blk.nRec + g
	}
	return nil
}

// checkBucketBlocks checks the index blocks of bucket b.
func (s *Store) checkBucketBlocks(b uint64, last *uint64) error {
	return s.checkIndexBytes(b*bucketSize, (b+1)*bucketSize, last)
}

// GetChecked is Get that checks every byte it relies on: the checksum of
// each index block it probes and of each records block holding a record
// it decodes (and a referenced value). It returns a value only if all of
// them match; a mismatch is an error matching ErrChecksum, a record that
// does not decode although its block matches, ErrCorrupt. A miss is
// reported only after the buckets that prove it were checked.
func (s *Store) GetChecked(key []byte) ([]byte, bool, error) {
	v, ok, err := s.LookupChecked(key)
	return v.b, ok, err
}

// LookupChecked is Lookup with GetChecked's checks, and it also checks
// the value as Verify does (valid UTF-8 strings, a bool of 0 or 1, a
// []string that decodes): a value it returns is the one that was built,
// of the type it was built with.
func (s *Store) LookupChecked(key []byte) (Value, bool, error) {
	if s.data == nil {
		return Value{}, false, fmt.Errorf("mmapstore: get %s: %w", s.path, ErrClosed)
	}
	v, ok, err := s.lookupChecked(key, s.hash(key))
	if err == nil && ok {
		if verr := checkValue(v.typ, v.b); verr != nil {
			err = fmt.Errorf("%w: %w", ErrCorrupt, verr)
		}
	}
	if err != nil {
		return Value{}, false, fmt.Errorf("mmapstore: get %q from %s: %w", clip(key), s.path, err)
	}
	return v, ok, nil
}

// lookupChecked is LookupChecked's lookup: the blocks of every bucket it
// probes are checked before the bucket is read, and the blocks of a
// record it decodes before the record is.
func (s *Store) lookupChecked(key []byte, h uint64) (Value, bool, error) {
	b := homeBucket(h, s.buckets)
	t, ot := bucketTag(h), outTag(h)
	last := ^uint64(0)
	for n := s.maxProbe; n > 0; n, b = n-1, b+1 {
		if err := s.checkBucketBlocks(b, &last); err != nil {
			return Value{}, false, err
		}
		bk := s.bucket(b)
		var val Value
		var found bool
		var ferr error
		perr := parseBucket(bk, func(e bucketEntry) bool {
			switch {
			case e.tag != t:
			case e.inline:
				if string(e.key) == string(key) {
					val, found = e.value(), true
					return false
				}
			case e.outTag == ot:
				val, found, ferr = s.matchChecked(key, e.off)
				return ferr == nil && !found
			}
			return true
		})
		switch {
		case ferr != nil:
			return Value{}, false, ferr
		case found:
			return val, true, nil
		case perr != nil:
			return Value{}, false, fmt.Errorf("bucket %d: %w", b, perr)
		case bk[bucketFlags]&bucketOverflow == 0:
			return Value{}, false, nil
		}
	}
	return Value{}, false, nil
}

// matchChecked is match after checking the record's blocks.
func (s *Store) matchChecked(key []byte, off uint64) (Value, bool, error) {
	if off < HeaderSize || off >= uint64(len(s.recs)) {
		return Value{}, false, fmt.Errorf("%w: bucket entry points to offset %d outside the records", ErrCorrupt, off)
	}
	r, ok := decodeRecord(s.recs, off, s.dedup)
	if !ok {
		if err := s.checkRecordBytes(off, off+1); err != nil {
			return Value{}, false, err
		}
		return Value{}, false, fmt.Errorf("%w: record at offset %d cannot be decoded", ErrCorrupt, off)
	}
	if err := s.checkRecordBytes(off, r.end); err != nil {
		return Value{}, false, err
	}
	if r.keyLen != uint64(len(key)) || string(s.recs[r.keyOff:r.keyOff+r.keyLen]) != string(key) {
		return Value{}, false, nil
	}
	if r.ref {
		if err := s.checkRecordBytes(r.valOff, r.valOff+r.valLen); err != nil {
			return Value{}, false, err
		}
	}
	return r.value(s.recs), true, nil
}

// verifyBlocks checks the block table's checksum and every block.
func (s *Store) verifyBlocks(ctx context.Context) error {
	if sum := xxhash.Sum64(s.blk.table); sum != s.hdr.BlockTableSum {
		return fmt.Errorf("%w: block table checksum is %#016x, stored %#016x", ErrChecksum, sum, s.hdr.BlockTableSum)
	}
	n := uint64(len(s.blk.table)) / blockSumSize
	released := uint64(0)
	for g := range n {
		if err := stopped(ctx, g); err != nil {
			return err
		}
		if err := s.checkBlock(g); err != nil {
			return err
		}
		if g < s.blk.nRec {
			s.releaseBehind(&released, s.hdr.RecordsOffset+(g+1)<<s.blk.shift)
		}
	}
	return nil
}

// entryKey returns the key of a bucket entry: inline, or read from its
// record (which must decode) in the records section.
func (s *Store) entryKey(e bucketEntry) ([]byte, record, error) {
	if e.inline {
		return e.key, record{}, nil
	}
	r, ok := decodeRecord(s.recs, e.off, s.dedup)
	if e.off < HeaderSize || !ok {
		return nil, r, fmt.Errorf("%w: bucket entry %d points to offset %d, where no record decodes", ErrCorrupt, e.slot, e.off)
	}
	return s.recs[r.keyOff : r.keyOff+r.keyLen], r, nil
}

// checkEntry checks that entry e of bucket j belongs there: its tags are
// its key's, its home bucket lies at most MaxProbe−1 buckets before j,
// and a lookup of its key ends at exactly this entry. It returns the
// key's home bucket.
func (s *Store) checkEntry(j uint64, e bucketEntry, key []byte) (uint64, error) {
	h := s.hash(key)
	if e.tag != bucketTag(h) || (!e.inline && e.outTag != outTag(h)) {
		return 0, fmt.Errorf("%w: bucket %d entry %d: tags do not match key %q", ErrCorrupt, j, e.slot, clip(key))
	}
	home := homeBucket(h, s.buckets)
	if j < home || j-home >= s.maxProbe {
		return 0, fmt.Errorf("%w: key %q lies in bucket %d, its home is %d (max probe %d)", ErrCorrupt, clip(key), j, home, s.maxProbe)
	}
	if _, b, slot, ok := s.find(key, h); !ok || b != j || slot != e.slot {
		return 0, fmt.Errorf("%w: key %q in bucket %d entry %d is not found there by a lookup (seed %#x, max probe %d)", ErrCorrupt, clip(key), j, e.slot, s.hdr.Seed, s.maxProbe)
	}
	return home, nil
}

// checkBucket is what CheckSample and Keys check of bucket j: its
// blocks, its structure, and for every entry the record blocks up to
// the end of its key, its tags, that a lookup of its key ends there and
// the blocks of the buckets that lookup passed.
func (s *Store) checkBucket(j uint64) error {
	last := ^uint64(0)
	if err := s.checkBucketBlocks(j, &last); err != nil {
		return err
	}
	var ferr error
	err := parseBucket(s.bucket(j), func(e bucketEntry) bool {
		key, r, err := s.entryKey(e)
		if err == nil && !e.inline {
			// Up to the end of the key only: a sample must not read a
			// value that may be gigabytes long.
			err = s.checkRecordBytes(e.off, r.keyOff+r.keyLen)
		}
		if err != nil {
			ferr = err
			return false
		}
		home, err := s.checkEntry(j, e, key)
		for b := home; err == nil && b < j; b++ {
			err = s.checkBucketBlocks(b, &last)
		}
		ferr = err
		return err == nil
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return fmt.Errorf("bucket %d: %w", j, err)
	}
	return nil
}

// CheckSample is what plain `cachebench inspect` checks: Open's header
// checks, then for up to n buckets spread evenly over the index, the
// used one at or after each position: every entry's record decodes, a
// lookup of each key ends at its entry, and the index blocks the lookup
// passed and the record's blocks up to the end of its key match their
// checksums. Out-of-line values are not read: --get checks those. The
// cost is n buckets' worth of lookups whatever the file size.
func (s *Store) CheckSample(n int) error {
	if s.data == nil {
		return fmt.Errorf("mmapstore: check %s: %w", s.path, ErrClosed)
	}
	total := s.hdr.totalBuckets()
	for k := range uint64(max(n, 0)) {
		if s.hdr.Entries == 0 {
			break
		}
		j := k * total / uint64(n)
		for d := 0; d < 64 && j+1 < total && s.bucket(j)[bucketFlags]&bucketCountMask == 0; d++ {
			j++
		}
		if err := s.checkBucket(j); err != nil {
			return fmt.Errorf("mmapstore: check %s: %w", s.path, err)
		}
	}
	return nil
}

// Keys returns up to n live keys in index order, each bucket confirmed
// as CheckSample confirms one before its keys are listed (the lookup of
// each key ends at its entry, through index blocks and record bytes up
// to the end of the key that match their checksums), so a damaged key is
// reported as an error instead of listed. It reads only the buckets and
// records it lists, and not the out-of-line values.
func (s *Store) Keys(n int) ([]string, error) {
	keys := []string{}
	if s.data == nil {
		return keys, fmt.Errorf("mmapstore: keys of %s: %w", s.path, ErrClosed)
	}
	total := s.hdr.totalBuckets()
	for j := uint64(0); j < total && len(keys) < n; j++ {
		if s.bucket(j)[bucketFlags]&bucketCountMask == 0 {
			continue
		}
		if err := s.checkBucket(j); err != nil {
			return keys, fmt.Errorf("mmapstore: keys of %s: %w", s.path, err)
		}
		parseBucket(s.bucket(j), func(e bucketEntry) bool {
			key, _, _ := s.entryKey(e) // checked above
			keys = append(keys, string(key))
			return len(keys) < n
		})
	}
	return keys, nil
}

package mmapstore

import (
	"encoding/binary"
	"fmt"
	"sync"

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

// blocks is a version-2 file's block table, ready for checks.
type blocks struct {
	shift uint16
	nRec  uint64 // records blocks come first in the table, then index blocks
	key   uint64
	table []byte
	// v1once checks a version-1 file's two section checksums for the
	// first checked lookup; v1err is its result.
	v1once sync.Once
	v1err  error
}

func (s *Store) initBlocks(hb []byte) {
	if s.hdr.Version == Version1 {
		return
	}
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

// GetChecked is Get that checks every byte it relies on: the checksum of
// each index block it probes and of each records block holding a record
// it decodes (and a referenced value). It returns a value only if all of
// them match; a mismatch is an error matching ErrChecksum, a record that
// does not decode although its block matches, ErrCorrupt. A miss is
// reported only after the slots that prove it were checked.
//
// On a version-1 file, whose checksums cover whole sections, the first
// GetChecked reads and checks both sections (the cost of the file's
// size, once) and later calls rely on that.
func (s *Store) GetChecked(key []byte) ([]byte, bool, error) {
	if s.data == nil {
		return nil, false, fmt.Errorf("mmapstore: get %s: %w", s.path, ErrClosed)
	}
	if s.hdr.Version == Version1 {
		s.blk.v1once.Do(func() { s.blk.v1err = s.verifySections() })
		if s.blk.v1err != nil {
			return nil, false, fmt.Errorf("mmapstore: get %s: %w", s.path, s.blk.v1err)
		}
		v, ok := s.Get(key)
		return v, ok, nil
	}
	lookup := s.lookupChecked
	if s.buckets != 0 {
		lookup = s.lookupChecked3
	}
	v, ok, err := lookup(key, s.hash(key))
	if err != nil {
		return nil, false, fmt.Errorf("mmapstore: get %q from %s: %w", clip(key), s.path, err)
	}
	return v, ok, nil
}

func (s *Store) lookupChecked(key []byte, h uint64) ([]byte, bool, error) {
	tag := h >> offsetBits
	i := h & s.mask
	lastBlock := ^uint64(0)
	for n := s.maxProbe; n > 0; n-- {
		if g := s.blk.nRec + (i*slotSize)>>s.blk.shift; g != lastBlock {
			if err := s.checkBlock(g); err != nil {
				return nil, false, err
			}
			lastBlock = g
		}
		v := binary.LittleEndian.Uint64(s.index[i*slotSize:])
		if v == 0 {
			return nil, false, nil
		}
		if v>>offsetBits == tag {
			val, ok, err := s.matchChecked(key, v&offsetMask)
			if err != nil || ok {
				return val, ok, err
			}
		}
		i = (i + 1) & s.mask
	}
	return nil, false, nil
}

// matchChecked is match after checking the record's blocks.
func (s *Store) matchChecked(key []byte, off uint64) ([]byte, bool, error) {
	if off < HeaderSize || off >= uint64(len(s.recs)) {
		return nil, false, fmt.Errorf("%w: slot points to offset %d outside the records", ErrCorrupt, off)
	}
	r, ok := decodeRecord(s.recs, off, s.dedup)
	if !ok {
		if err := s.checkRecordBytes(off, off+1); err != nil {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("%w: record at offset %d cannot be decoded", ErrCorrupt, off)
	}
	if err := s.checkRecordBytes(off, r.end); err != nil {
		return nil, false, err
	}
	if r.keyLen != uint64(len(key)) || string(s.recs[r.keyOff:r.keyOff+r.keyLen]) != string(key) {
		return nil, false, nil
	}
	end := r.valOff + r.valLen
	if r.ref {
		if err := s.checkRecordBytes(r.valOff, end); err != nil {
			return nil, false, err
		}
	}
	return s.recs[r.valOff:end:end], true, nil
}

// verifyBlocks checks the block table's checksum and every block.
func (s *Store) verifyBlocks() error {
	if sum := xxhash.Sum64(s.blk.table); sum != s.hdr.BlockTableSum {
		return fmt.Errorf("%w: block table checksum is %#016x, stored %#016x", ErrChecksum, sum, s.hdr.BlockTableSum)
	}
	n := uint64(len(s.blk.table)) / blockSumSize
	released := uint64(0)
	for g := range n {
		if err := s.checkBlock(g); err != nil {
			return err
		}
		if g < s.blk.nRec {
			s.releaseBehind(&released, s.hdr.RecordsOffset+(g+1)<<s.blk.shift)
		}
	}
	return nil
}

// CheckSample is what plain `cachebench inspect` checks: Open's header
// checks, then for up to n buckets (version 3) or slots spread evenly
// over the index, the used one at or after each position: each record
// decodes, a lookup of each key ends at its entry, and (versions 2 and
// 3) the index blocks the lookup passed and the record's blocks up to
// the end of its key match their checksums. Out-of-line values are not
// read: --get checks those. A version-1 file has no block
// checksums; its samples are checked for structure only. The cost is n
// lookups whatever the file size.
func (s *Store) CheckSample(n int) error {
	if s.data == nil {
		return fmt.Errorf("mmapstore: check %s: %w", s.path, ErrClosed)
	}
	if s.buckets != 0 {
		if err := s.checkSample3(n); err != nil {
			return fmt.Errorf("mmapstore: check %s: %w", s.path, err)
		}
		return nil
	}
	slots := s.hdr.Slots
	for k := range uint64(max(n, 0)) {
		if s.hdr.Entries == 0 {
			break
		}
		j := k * slots / uint64(n)
		// The nearest used slot; a long empty run is possible but the
		// scan is bounded.
		for d := uint64(0); d < 64; d, j = d+1, (j+1)&s.mask {
			if binary.LittleEndian.Uint64(s.index[j*slotSize:]) != 0 {
				break
			}
		}
		if err := s.checkSlot(j); err != nil {
			return fmt.Errorf("mmapstore: check %s: %w", s.path, err)
		}
	}
	return nil
}

// checkSlot checks one slot as CheckSample describes.
func (s *Store) checkSlot(j uint64) error {
	if s.hdr.Version != Version1 {
		if err := s.checkBlock(s.blk.nRec + (j*slotSize)>>s.blk.shift); err != nil {
			return err
		}
	}
	v := binary.LittleEndian.Uint64(s.index[j*slotSize:])
	if v == 0 {
		return nil
	}
	off := v & offsetMask
	r, ok := decodeRecord(s.recs, off, s.dedup)
	if off < HeaderSize || !ok {
		return fmt.Errorf("%w: slot %d points to offset %d, where no record decodes", ErrCorrupt, j, off)
	}
	key := s.recs[r.keyOff : r.keyOff+r.keyLen]
	if s.hdr.Version != Version1 {
		// The record up to its key only: a sample must not read a value
		// that may be gigabytes long.
		if err := s.checkRecordBytes(off, r.keyOff+r.keyLen); err != nil {
			return err
		}
	}
	h := s.hash(key)
	got, ok := s.findSlot(key, h)
	if !ok || got != j {
		return fmt.Errorf("%w: key %q in slot %d is not found there by a lookup (seed %#x, max probe %d)", ErrCorrupt, clip(key), j, s.hdr.Seed, s.hdr.MaxProbe)
	}
	if s.hdr.Version != Version1 {
		// The slots the lookup passed on its way to j.
		last := ^uint64(0)
		for i := h & s.mask; ; i = (i + 1) & s.mask {
			if g := s.blk.nRec + (i*slotSize)>>s.blk.shift; g != last {
				if err := s.checkBlock(g); err != nil {
					return err
				}
				last = g
			}
			if i == j {
				break
			}
		}
	}
	return nil
}

// Keys returns up to n live keys, in index order in a version-3 file
// and in file order in older ones, each confirmed as CheckSample
// confirms a bucket or slot (the lookup of the key ends at its entry;
// versions 2 and 3: through index blocks and record bytes up to the end
// of the key that match their checksums), so a damaged key is reported
// as an error instead of listed. It reads only the records it lists,
// and not their out-of-line values.
func (s *Store) Keys(n int) ([]string, error) {
	keys := []string{}
	if s.data == nil {
		return keys, fmt.Errorf("mmapstore: keys of %s: %w", s.path, ErrClosed)
	}
	if s.buckets != 0 {
		keys, err := s.keys3(n)
		if err != nil {
			return keys, fmt.Errorf("mmapstore: keys of %s: %w", s.path, err)
		}
		return keys, nil
	}
	for k := range s.All() {
		if len(keys) >= n {
			break
		}
		j, ok := s.findSlot(k, s.hash(k))
		if !ok {
			return keys, fmt.Errorf("mmapstore: keys of %s: %w: key %q of a live record is not found by a lookup", s.path, ErrCorrupt, clip(k))
		}
		if err := s.checkSlot(j); err != nil {
			return keys, fmt.Errorf("mmapstore: keys of %s: %w", s.path, err)
		}
		keys = append(keys, string(k))
	}
	if len(keys) < n && uint64(len(keys)) < s.hdr.Entries {
		return keys, fmt.Errorf("mmapstore: keys of %s: %w: a record after the %d listed ones does not decode", s.path, ErrCorrupt, len(keys))
	}
	return keys, nil
}

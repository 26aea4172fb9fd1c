package mmapstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"os"

	"github.com/cespare/xxhash/v2"
)

// Histogram counts values in power-of-two buckets: bucket b holds the
// values v with bits.Len64(v) == b, that is 0, 1, 2–3, 4–7, 8–15, …
type Histogram [65]uint64

// Add counts v.
func (h *Histogram) Add(v uint64) { h[bits.Len64(v)]++ }

// Bucket is one non-empty bucket of a Histogram: Count values in [Min, Max].
type Bucket struct {
	Min   uint64 `json:"min"`
	Max   uint64 `json:"max"`
	Count uint64 `json:"count"`
}

// Buckets returns the non-empty buckets in increasing order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for b, c := range h {
		if c == 0 {
			continue
		}
		lo, hi := uint64(0), uint64(0)
		if b > 0 {
			lo = 1 << (b - 1)
			hi = lo<<1 - 1
			if b == 64 {
				hi = ^uint64(0)
			}
		}
		out = append(out, Bucket{Min: lo, Max: hi, Count: c})
	}
	return out
}

// MarshalJSON writes the non-empty buckets.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	b := h.Buckets()
	if b == nil {
		b = []Bucket{}
	}
	return json.Marshal(b)
}

// Stats describes a file: its header, how full and well spread its index
// is, the sizes of its keys and values and what deduplication saved.
type Stats struct {
	Path            string    `json:"path"`
	Header          Header    `json:"header"`
	Entries         uint64    `json:"entries"`
	Records         uint64    `json:"records"`
	DeadRecords     uint64    `json:"dead_records"`  // records shadowed by a later duplicate key
	Slots           uint64    `json:"slots"`         // index slots (versions 1, 2) or home buckets (version 3)
	LoadFactor      float64   `json:"load_factor"`   // slots in use, or (version 3) the share of the buckets' entry bytes in use
	ProbeLengths    Histogram `json:"probe_lengths"` // slots (version 3: buckets) inspected to find each key (1 = home)
	MeanProbe       float64   `json:"mean_probe"`
	KeySizes        Histogram `json:"key_sizes"`
	ValueSizes      Histogram `json:"value_sizes"`
	KeyBytes        uint64    `json:"key_bytes"`
	ValueBytes      uint64    `json:"value_bytes"` // logical value bytes, duplicates counted each time
	DedupRefs       uint64    `json:"dedup_refs"`
	DedupSavedBytes uint64    `json:"dedup_saved_bytes"`
	BytesPerEntry   float64   `json:"bytes_per_entry"` // file size / entries
	BadSlots        uint64    `json:"bad_slots"`       // slots (version 3: buckets and entries) that could not be decoded

	// Version 3 only.
	Buckets         uint64    `json:"buckets,omitempty"`          // home buckets
	IndexBuckets    uint64    `json:"index_buckets,omitempty"`    // buckets in the index: home buckets and the tail after them
	Inline          uint64    `json:"inline,omitempty"`           // keys whose record is in their bucket
	OutOfLine       uint64    `json:"out_of_line,omitempty"`      // keys whose record is in the records section
	OverflowBuckets uint64    `json:"overflow_buckets,omitempty"` // buckets with the overflow bit set
	BucketEntries   Histogram `json:"bucket_entries"`             // entries per bucket (version 3)
}

// Inspect walks every record and every slot and returns the file's
// statistics. It reads each byte at most a few times and allocates
// nothing proportional to the file, so it terminates on any file that
// Open accepted; on a corrupt record or slot it returns what it gathered
// with an ErrCorrupt error.
func (s *Store) Inspect() (Stats, error) {
	st := Stats{Path: s.path, Header: s.hdr, Slots: s.hdr.Slots, Records: s.hdr.Records}
	if s.data == nil {
		return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, ErrClosed)
	}
	var errs []error
	// Records, in file order.
	off, end := uint64(HeaderSize), uint64(len(s.recs))
	var n uint64
	for off < end {
		r, ok := decodeRecord(s.recs, off, s.dedup)
		if !ok {
			errs = append(errs, fmt.Errorf("%w: record %d at offset %d cannot be decoded", ErrCorrupt, n, off))
			break
		}
		n++
		st.KeySizes.Add(r.keyLen)
		st.ValueSizes.Add(r.valLen)
		st.KeyBytes += r.keyLen
		st.ValueBytes += r.valLen
		if r.ref {
			st.DedupRefs++
			st.DedupSavedBytes += r.valLen - min(r.valLen, uint64(uvarintLen(r.valOff)))
		}
		off = r.end
	}
	if len(errs) == 0 && n != s.hdr.Records {
		errs = append(errs, fmt.Errorf("%w: %d records in the file, header says %d", ErrCorrupt, n, s.hdr.Records))
	}
	if s.buckets != 0 {
		errs = append(errs, s.inspect3(&st)...)
		if st.Entries != s.hdr.Entries {
			errs = append(errs, fmt.Errorf("%w: %d entries in the buckets, header says %d", ErrCorrupt, st.Entries, s.hdr.Entries))
		}
		if st.Entries > 0 {
			st.BytesPerEntry = float64(s.hdr.FileSize) / float64(st.Entries)
		}
		if err := errors.Join(errs...); err != nil {
			return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, err)
		}
		return st, nil
	}
	// Slots.
	var probeSum uint64
	for j := uint64(0); j < s.hdr.Slots; j++ {
		v := binary.LittleEndian.Uint64(s.index[j*slotSize:])
		if v == 0 {
			continue
		}
		st.Entries++
		r, ok := decodeRecord(s.recs, v&offsetMask, s.dedup)
		if !ok || v&offsetMask < HeaderSize {
			st.BadSlots++
			continue
		}
		h := s.hash(s.recs[r.keyOff : r.keyOff+r.keyLen])
		p := (j-h)&s.mask + 1
		st.ProbeLengths.Add(p)
		probeSum += p
	}
	if st.BadSlots > 0 {
		errs = append(errs, fmt.Errorf("%w: %d slots point to no valid record", ErrCorrupt, st.BadSlots))
	}
	if st.Entries != s.hdr.Entries {
		errs = append(errs, fmt.Errorf("%w: %d slots in use, header says %d entries", ErrCorrupt, st.Entries, s.hdr.Entries))
	}
	st.DeadRecords = st.Records - min(st.Records, st.Entries)
	if st.Slots > 0 {
		st.LoadFactor = float64(st.Entries) / float64(st.Slots)
	}
	if st.Entries > 0 {
		if good := st.Entries - st.BadSlots; good > 0 {
			st.MeanProbe = float64(probeSum) / float64(good)
		}
		st.BytesPerEntry = float64(s.hdr.FileSize) / float64(st.Entries)
	}
	if err := errors.Join(errs...); err != nil {
		return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, err)
	}
	return st, nil
}

// Verify checks the whole file: both section checksums, the padding,
// every record (lengths, value references), and every slot (it points to
// the start of a record no other slot points to, its tag matches the
// key's hash, and a lookup of that key from its home slot reaches exactly
// this slot within MaxProbe). It returns nil or an error matching
// ErrChecksum and/or ErrCorrupt. It reads the mapping sequentially (and
// the index at random, one lookup per record and per slot), allocates
// nothing that grows with the file, and drops the pages of its
// sequential passes behind it, so its resident memory stays bounded.
func (s *Store) Verify() error {
	if s.data == nil {
		return fmt.Errorf("mmapstore: verify %s: %w", s.path, ErrClosed)
	}
	if err := s.verify(); err != nil {
		return fmt.Errorf("mmapstore: verify %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) verify() error {
	var errs []error
	h := s.hdr
	if h.Version == Version1 {
		if err := s.verifySections(); err != nil {
			errs = append(errs, err)
		}
	} else if err := s.verifyBlocks(); err != nil {
		errs = append(errs, err)
	}
	recEnd := h.RecordsOffset + h.RecordsLength
	if pad := s.data[recEnd:h.IndexOffset]; bytes.Count(pad, []byte{0}) != len(pad) {
		errs = append(errs, fmt.Errorf("%w: non-zero padding between records and index", ErrCorrupt))
	}
	verifyStructure := s.verifyStructure
	if s.buckets != 0 {
		verifyStructure = s.verifyStructure3
	}
	if err := verifyStructure(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// verifySections checks a version-1 file's two section checksums.
func (s *Store) verifySections() error {
	var errs []error
	h := s.hdr
	if sum := xxhash.Sum64(s.recs[HeaderSize:]); sum != h.RecordsChecksum {
		errs = append(errs, fmt.Errorf("%w: records section checksum is %#016x, stored %#016x", ErrChecksum, sum, h.RecordsChecksum))
	}
	if sum := xxhash.Sum64(s.index); sum != h.IndexChecksum {
		errs = append(errs, fmt.Errorf("%w: index section checksum is %#016x, stored %#016x", ErrChecksum, sum, h.IndexChecksum))
	}
	return errors.Join(errs...)
}

// verifyStructure checks every record and slot without memory that grows
// with the file: a sequential pass over the records counts those whose
// key's lookup ends at a slot pointing to exactly that record (the live
// ones, each at its own slot), and a pass over the slots checks each used
// slot's record, tag and reachability. Every used slot then points to the
// start of a record exactly when the live records are as many as the used
// slots.
func (s *Store) verifyStructure() error {
	h := s.hdr
	base := uint64(HeaderSize)
	live, err := s.scanRecords(func(key []byte, off uint64) bool {
		j, ok := s.findSlot(key, s.hash(key))
		return ok && binary.LittleEndian.Uint64(s.index[j*slotSize:])&offsetMask == off
	})
	if err != nil {
		return err
	}
	var entries, longest uint64
	for j := uint64(0); j < h.Slots; j++ {
		v := binary.LittleEndian.Uint64(s.index[j*slotSize:])
		if v == 0 {
			continue
		}
		entries++
		off := v & offsetMask
		r, ok := decodeRecord(s.recs, off, s.dedup)
		if off < base || !ok {
			return fmt.Errorf("%w: slot %d points to offset %d, where no record decodes", ErrCorrupt, j, off)
		}
		// Two slots pointing to one record: the lookup below finds the
		// first of them, which is not j for the second.
		key := s.recs[r.keyOff : r.keyOff+r.keyLen]
		hk := s.hash(key)
		if hk>>offsetBits != v>>offsetBits {
			return fmt.Errorf("%w: slot %d has tag %#x, key %q hashes to tag %#x", ErrCorrupt, j, v>>offsetBits, clip(key), hk>>offsetBits)
		}
		if got, ok := s.findSlot(key, hk); !ok || got != j {
			return fmt.Errorf("%w: key %q in slot %d is not found there by a lookup (max probe %d)", ErrCorrupt, clip(key), j, h.MaxProbe)
		}
		longest = max(longest, (j-hk)&s.mask+1)
	}
	if longest != h.MaxProbe {
		return fmt.Errorf("%w: header says the longest probe is %d slots, it is %d", ErrCorrupt, h.MaxProbe, longest)
	}
	if entries != h.Entries {
		return fmt.Errorf("%w: %d slots in use, header says %d entries", ErrCorrupt, entries, h.Entries)
	}
	if live != entries {
		return fmt.Errorf("%w: %d records are found by a lookup at their own slot, %d slots are in use (a slot points into the middle of a record?)", ErrCorrupt, live, entries)
	}
	return nil
}

// scanRecords decodes every record in file order, dropping the pages
// behind it, checks that there are as many as the header says and
// returns how many of them live(key, offset) calls live.
func (s *Store) scanRecords(live func(key []byte, off uint64) bool) (uint64, error) {
	base, end := uint64(HeaderSize), uint64(len(s.recs))
	var n, nLive uint64
	released := base
	for off := base; off < end; {
		r, ok := decodeRecord(s.recs, off, s.dedup)
		if !ok {
			return 0, fmt.Errorf("%w: record %d at offset %d cannot be decoded", ErrCorrupt, n, off)
		}
		if live(s.recs[r.keyOff:r.keyOff+r.keyLen], off) {
			nLive++
		}
		n++
		off = r.end
		s.releaseBehind(&released, off)
	}
	if n != s.hdr.Records {
		return 0, fmt.Errorf("%w: %d records in the file, header says %d", ErrCorrupt, n, s.hdr.Records)
	}
	return nLive, nil
}

// releaseBehind lets the kernel drop the mapped pages a sequential pass
// has read, from *done up to to, in steps of 64 MiB, so Verify's resident
// memory stays bounded on any file size (the pages stay in the page
// cache; a later read faults them back in).
func (s *Store) releaseBehind(done *uint64, to uint64) {
	const step = 64 << 20
	if !s.mapped || to < *done+step {
		return
	}
	page := uint64(os.Getpagesize())
	lo, hi := *done/page*page, to/page*page
	if hi > lo {
		release(s.data[lo:hi])
	}
	*done = hi
}

// findSlot is lookup returning the slot position instead of the value.
func (s *Store) findSlot(key []byte, h uint64) (uint64, bool) {
	i := h & s.mask
	for n := s.maxProbe; n > 0; n-- {
		v := binary.LittleEndian.Uint64(s.index[i*slotSize:])
		if v == 0 {
			return 0, false
		}
		if v>>offsetBits == h>>offsetBits {
			if _, ok := s.match(key, v&offsetMask); ok {
				return i, true
			}
		}
		i = (i + 1) & s.mask
	}
	return 0, false
}

// clip shortens a key for an error message.
func clip(k []byte) []byte {
	if len(k) > 64 {
		return k[:64]
	}
	return k
}

// All yields the live entries (those a Get finds) in file order, as
// zero-copy slices valid until Close. Records shadowed by a later
// duplicate are skipped. On a file whose records cannot be decoded it
// stops at the first bad record; Verify reports it.
func (s *Store) All() iter.Seq2[[]byte, []byte] {
	if s.buckets != 0 {
		return s.all3()
	}
	return func(yield func([]byte, []byte) bool) {
		recs := s.recs
		for off := uint64(HeaderSize); off < uint64(len(recs)); {
			r, ok := decodeRecord(recs, off, s.dedup)
			if !ok {
				return
			}
			key := recs[r.keyOff : r.keyOff+r.keyLen]
			if s.hdr.Records == s.hdr.Entries || s.isLive(key, off) {
				if !yield(key, recs[r.valOff:r.valOff+r.valLen:r.valOff+r.valLen]) {
					return
				}
			}
			off = r.end
		}
	}
}

// isLive reports whether the index points to the record at off for key.
func (s *Store) isLive(key []byte, off uint64) bool {
	j, ok := s.findSlot(key, s.hash(key))
	return ok && binary.LittleEndian.Uint64(s.index[j*slotSize:])&offsetMask == off
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var bs []Bucket
	if err := json.Unmarshal(data, &bs); err != nil {
		return err
	}
	*h = Histogram{}
	for _, b := range bs {
		h[bits.Len64(b.Min)] += b.Count
	}
	return nil
}

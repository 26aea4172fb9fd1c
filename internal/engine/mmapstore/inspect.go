package mmapstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"runtime/debug"
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

// TypeMix counts entries by value type.
type TypeMix [numTypes]uint64

// MarshalJSON writes the non-zero counts as an object keyed by type name.
func (m *TypeMix) MarshalJSON() ([]byte, error) {
	out := map[string]uint64{}
	for t, n := range m {
		if n > 0 {
			out[Type(t).String()] = n
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *TypeMix) UnmarshalJSON(data []byte) error {
	var in map[string]uint64
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*m = TypeMix{}
	for name, n := range in {
		t, err := ParseType(name)
		if err != nil {
			return err
		}
		m[t] = n
	}
	return nil
}

// Stats describes a file: its header, how full and well spread its index
// is, the sizes of its keys and values, their types and what
// deduplication saved.
type Stats struct {
	Path            string    `json:"path"`
	Header          Header    `json:"header"`
	Entries         uint64    `json:"entries"`
	Records         uint64    `json:"records"`          // records in the records section
	DeadRecords     uint64    `json:"dead_records"`     // records shadowed by a later duplicate key
	Buckets         uint64    `json:"buckets"`          // home buckets
	IndexBuckets    uint64    `json:"index_buckets"`    // buckets in the index: home buckets and the tail after them
	LoadFactor      float64   `json:"load_factor"`      // the share of the buckets' entry bytes in use
	Inline          uint64    `json:"inline"`           // keys whose record is in their bucket
	OutOfLine       uint64    `json:"out_of_line"`      // keys whose record is in the records section
	OverflowBuckets uint64    `json:"overflow_buckets"` // buckets with the overflow bit set
	ProbeLengths    Histogram `json:"probe_lengths"`    // buckets inspected to find each key (1 = home)
	MeanProbe       float64   `json:"mean_probe"`
	BucketEntries   Histogram `json:"bucket_entries"` // entries per bucket
	Types           TypeMix   `json:"types"`          // live entries by value type
	KeySizes        Histogram `json:"key_sizes"`
	ValueSizes      Histogram `json:"value_sizes"`
	KeyBytes        uint64    `json:"key_bytes"`
	ValueBytes      uint64    `json:"value_bytes"` // logical value bytes, duplicates counted each time
	DedupRefs       uint64    `json:"dedup_refs"`
	DedupSavedBytes uint64    `json:"dedup_saved_bytes"`
	BytesPerEntry   float64   `json:"bytes_per_entry"` // file size / entries
	BadEntries      uint64    `json:"bad_entries"`     // buckets and entries that could not be decoded
}

// Inspect walks every record and every bucket and returns the file's
// statistics. It reads each byte at most a few times and allocates
// nothing proportional to the file, so it terminates on any file that
// Open accepted; on a corrupt record or bucket it returns what it
// gathered with an ErrCorrupt error.
func (s *Store) Inspect() (Stats, error) { return s.InspectContext(context.Background()) }

// InspectContext is Inspect, stopping with ctx's error (wrapped) once ctx
// is cancelled; it looks every verifyEvery records and buckets. A file
// rewritten in place gives ErrRewritten, as with VerifyContext.
func (s *Store) InspectContext(ctx context.Context) (st Stats, err error) {
	st = Stats{Path: s.path, Header: s.hdr, Records: s.hdr.Records}
	if s.data == nil {
		return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, ErrClosed)
	}
	if err := s.CheckFile(); err != nil {
		return st, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faultToError(&err)
	var errs []error
	// Records, in file order.
	off, end := uint64(HeaderSize), uint64(len(s.recs))
	var n uint64
	for off < end {
		if err := stopped(ctx, n); err != nil {
			return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, err)
		}
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
	errs = append(errs, s.inspectBuckets(ctx, &st)...)
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("mmapstore: inspect %s: %w", s.path, err)
	}
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

// inspectBuckets fills the index part of st and adds the inline
// entries' sizes to the key and value histograms.
func (s *Store) inspectBuckets(ctx context.Context, st *Stats) []error {
	var errs []error
	total := s.hdr.totalBuckets()
	st.Buckets, st.IndexBuckets = s.buckets, total
	var probeSum, used uint64
	for j := range total {
		if stopped(ctx, j) != nil {
			return errs // InspectContext reports ctx's error
		}
		bk := s.bucket(j)
		if bk[bucketFlags]&bucketOverflow != 0 {
			st.OverflowBuckets++
		}
		var count uint64
		err := parseBucket(bk, func(e bucketEntry) bool {
			count++
			used += uint64(e.end - e.pos)
			key, r, err := s.entryKey(e)
			if err != nil {
				st.BadEntries++
				return true
			}
			if e.inline {
				st.Types[e.typ]++
				st.Inline++
				st.KeySizes.Add(uint64(len(e.key)))
				st.ValueSizes.Add(uint64(len(e.val)))
				st.KeyBytes += uint64(len(e.key))
				st.ValueBytes += uint64(len(e.val))
			} else {
				st.Types[r.typ]++
				st.OutOfLine++
			}
			p := j - homeBucket(s.hash(key), s.buckets) + 1
			st.ProbeLengths.Add(p)
			probeSum += p
			return true
		})
		st.BucketEntries.Add(count)
		st.Entries += count
		if err != nil {
			st.BadEntries++
			errs = append(errs, fmt.Errorf("bucket %d: %w", j, err))
		}
	}
	st.LoadFactor = float64(used) / float64(total*bucketRoom)
	if good := st.Entries - min(st.Entries, st.BadEntries); good > 0 {
		st.MeanProbe = float64(probeSum) / float64(good)
	}
	st.DeadRecords = st.Records - min(st.Records, st.OutOfLine)
	return errs
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

package mmapstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"runtime/debug"
)

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
func (s *Store) Verify() error { return s.VerifyContext(context.Background()) }

// VerifyContext is Verify, stopping with ctx's error (wrapped) once ctx
// is cancelled: its passes look at ctx every verifyEvery blocks, records
// or buckets, so a verify of a large file ends within milliseconds of
// Ctrl-C instead of running to its end.
//
// A file rewritten in place under the mapping (see Open) makes it return
// ErrRewritten: its size is checked first, and a read that faults because
// the file shrank during the pass is turned into that error.
func (s *Store) VerifyContext(ctx context.Context) (err error) {
	if s.data == nil {
		return fmt.Errorf("mmapstore: verify %s: %w", s.path, ErrClosed)
	}
	if err := s.CheckFile(); err != nil {
		return err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faultToError(&err)
	if err := s.verify(ctx); err != nil {
		return fmt.Errorf("mmapstore: verify %s: %w", s.path, err)
	}
	return nil
}

// verifyEvery is how many blocks, records or buckets a pass of Verify
// checks between looks at its context: a few microseconds of work.
const verifyEvery = 1 << 12

// stopped returns ctx's error every verifyEvery-th i.
func stopped(ctx context.Context, i uint64) error {
	if i%verifyEvery != 0 {
		return nil
	}
	return ctx.Err()
}

func (s *Store) verify(ctx context.Context) error {
	var errs []error
	h := s.hdr
	if err := s.verifyBlocks(ctx); err != nil {
		if ctx.Err() != nil {
			return err
		}
		errs = append(errs, err)
	}
	recEnd := h.RecordsOffset + h.RecordsLength
	if pad := s.data[recEnd:h.IndexOffset]; bytes.Count(pad, []byte{0}) != len(pad) {
		errs = append(errs, fmt.Errorf("%w: non-zero padding between records and index", ErrCorrupt))
	}
	if err := s.verifyStructure(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// verifyStructure checks every record and bucket without memory that
// grows with the file: a pass over the records (each decodes and holds a
// valid value of its type; those an entry points to are counted), a pass
// over the buckets (each is well formed, every inline value is valid and
// every entry passes checkEntry, so no key is stored twice), and a
// backward pass that
// checks every overflow bit is set exactly when an entry of a later
// bucket has its home at or before it.
func (s *Store) verifyStructure(ctx context.Context) error {
	h := s.hdr
	// A record is live when the lookup of its key ends at an out-of-line
	// entry pointing to it.
	live, err := s.scanRecords(ctx, func(key []byte, off uint64) bool {
		_, b, slot, ok := s.find(key, s.hash(key))
		found := false
		if ok {
			parseBucket(s.bucket(b), func(e bucketEntry) bool {
				found = e.slot == slot && !e.inline && e.off == off
				return e.slot < slot
			})
		}
		return found
	})
	if err != nil {
		return err
	}
	total := h.totalBuckets()
	var entries, outs, longest uint64
	for j := range total {
		if err := stopped(ctx, j); err != nil {
			return err
		}
		var ferr error
		err := parseBucket(s.bucket(j), func(e bucketEntry) bool {
			key, _, err := s.entryKey(e)
			if err == nil && e.inline {
				if verr := checkValue(e.typ, e.val); verr != nil {
					err = fmt.Errorf("%w: bucket %d entry %d: %w", ErrCorrupt, j, e.slot, verr)
				}
			}
			var home uint64
			if err == nil {
				home, err = s.checkEntry(j, e, key)
			}
			if err != nil {
				ferr = err
				return false
			}
			longest = max(longest, j-home+1)
			entries++
			if !e.inline {
				outs++
			}
			return true
		})
		if ferr != nil {
			return ferr
		}
		if err != nil {
			return fmt.Errorf("bucket %d: %w", j, err)
		}
	}
	minHome := ^uint64(0)
	for j := total; j > 0; {
		j--
		if err := stopped(ctx, j); err != nil {
			return err
		}
		bk := s.bucket(j)
		if need, have := minHome <= j, bk[bucketFlags]&bucketOverflow != 0; need != have {
			return fmt.Errorf("%w: bucket %d has overflow bit %v, want %v", ErrCorrupt, j, have, need)
		}
		parseBucket(bk, func(e bucketEntry) bool { // checked by the pass above
			key, _, _ := s.entryKey(e)
			minHome = min(minHome, homeBucket(s.hash(key), s.buckets))
			return true
		})
	}
	if longest != h.MaxProbe {
		return fmt.Errorf("%w: header says the longest probe is %d buckets, it is %d", ErrCorrupt, h.MaxProbe, longest)
	}
	if entries != h.Entries {
		return fmt.Errorf("%w: %d entries in the buckets, header says %d", ErrCorrupt, entries, h.Entries)
	}
	if live != outs {
		return fmt.Errorf("%w: %d records are found by a lookup at their own entry, %d entries point to records (an entry points into the middle of a record?)", ErrCorrupt, live, outs)
	}
	return nil
}

// scanRecords decodes every record in file order and checks its value,
// dropping the pages behind it, checks that there are as many as the
// header says and
// returns how many of them live(key, offset) calls live.
func (s *Store) scanRecords(ctx context.Context, live func(key []byte, off uint64) bool) (uint64, error) {
	base, end := uint64(HeaderSize), uint64(len(s.recs))
	var n, nLive uint64
	released := base
	for off := base; off < end; {
		if err := stopped(ctx, n); err != nil {
			return 0, err
		}
		r, ok := decodeRecord(s.recs, off, s.dedup)
		if !ok {
			return 0, fmt.Errorf("%w: record %d at offset %d cannot be decoded", ErrCorrupt, n, off)
		}
		if err := checkValue(r.typ, r.value(s.recs).b); err != nil {
			return 0, fmt.Errorf("%w: record %d at offset %d: %w", ErrCorrupt, n, off, err)
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

// All yields every live entry (those a Get finds) and its value in
// bucket order, as zero-copy slices valid until Close. Records shadowed
// by a later duplicate are not listed. It stops at a bucket or record
// that does not decode; Verify reports it.
func (s *Store) All() iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		total := s.hdr.totalBuckets()
		for j := range total {
			stop := false
			err := parseBucket(s.bucket(j), func(e bucketEntry) bool {
				key, r, err := s.entryKey(e)
				if err != nil {
					stop = true
					return false
				}
				val := e.value()
				if !e.inline {
					val = r.value(s.recs)
				}
				stop = !yield(key, val)
				return !stop
			})
			if stop || err != nil {
				return
			}
		}
	}
}

// clip shortens a key for an error message.
func clip(k []byte) []byte {
	if len(k) > 64 {
		return k[:64]
	}
	return k
}

package mmapstore

import (
	"fmt"
	"iter"
)

// Version-3 counterparts of the checks in checked.go and inspect.go.

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

// lookupChecked3 is GetChecked for version 3: the blocks of every bucket
// it probes are checked before the bucket is read, and the blocks of a
// record it decodes before the record is.
func (s *Store) lookupChecked3(key []byte, h uint64) ([]byte, bool, error) {
	b := homeBucket(h, s.buckets)
	t, ot := bucketTag(h), outTag(h)
	last := ^uint64(0)
	for n := s.maxProbe; n > 0; n, b = n-1, b+1 {
		if err := s.checkBucketBlocks(b, &last); err != nil {
			return nil, false, err
		}
		bk := s.bucket(b)
		var val []byte
		var found bool
		var ferr error
		perr := parseBucket(bk, func(e bucketEntry) bool {
			switch {
			case e.tag != t:
			case e.inline:
				if string(e.key) == string(key) {
					val, found = e.val, true
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
			return nil, false, ferr
		case found:
			return val, true, nil
		case perr != nil:
			return nil, false, fmt.Errorf("bucket %d: %w", b, perr)
		case bk[bucketFlags]&bucketOverflow == 0:
			return nil, false, nil
		}
	}
	return nil, false, nil
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
	if _, b, slot, ok := s.find3(key, h); !ok || b != j || slot != e.slot {
		return 0, fmt.Errorf("%w: key %q in bucket %d entry %d is not found there by a lookup (seed %#x, max probe %d)", ErrCorrupt, clip(key), j, e.slot, s.hdr.Seed, s.maxProbe)
	}
	return home, nil
}

// checkBucket3 is what CheckSample and Keys check of bucket j: its
// blocks, its structure, and for every entry the record blocks up to
// the end of its key, its tags, that a lookup of its key ends there and
// the blocks of the buckets that lookup passed.
func (s *Store) checkBucket3(j uint64) error {
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

// checkSample3 is CheckSample for version 3: n buckets spread evenly
// over the index, each the first used one at or after its position.
func (s *Store) checkSample3(n int) error {
	total := s.hdr.totalBuckets()
	for k := range uint64(max(n, 0)) {
		if s.hdr.Entries == 0 {
			break
		}
		j := k * total / uint64(n)
		for d := 0; d < 64 && j+1 < total && s.bucket(j)[bucketFlags]&bucketCountMask == 0; d++ {
			j++
		}
		if err := s.checkBucket3(j); err != nil {
			return err
		}
	}
	return nil
}

// keys3 is Keys for version 3: keys in index order, each bucket checked
// as CheckSample checks one before its keys are listed.
func (s *Store) keys3(n int) ([]string, error) {
	keys := []string{}
	total := s.hdr.totalBuckets()
	for j := uint64(0); j < total && len(keys) < n; j++ {
		if s.bucket(j)[bucketFlags]&bucketCountMask == 0 {
			continue
		}
		if err := s.checkBucket3(j); err != nil {
			return keys, err
		}
		parseBucket(s.bucket(j), func(e bucketEntry) bool {
			key, _, _ := s.entryKey(e) // checked above
			keys = append(keys, string(key))
			return len(keys) < n
		})
	}
	return keys, nil
}

// all3 yields every entry of a version-3 index in bucket order; it stops
// at a bucket or record that does not decode.
func (s *Store) all3() iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		total := s.hdr.totalBuckets()
		for j := range total {
			stop := false
			err := parseBucket(s.bucket(j), func(e bucketEntry) bool {
				key, r, err := s.entryKey(e)
				if err != nil {
					stop = true
					return false
				}
				val := e.val
				if !e.inline {
					end := r.valOff + r.valLen
					val = s.recs[r.valOff:end:end]
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

// verifyStructure3 is verifyStructure for version 3: a pass over the
// records (each decodes; those an entry points to are counted), a pass
// over the buckets (each is well formed and every entry passes
// checkEntry, so no key is stored twice), and a backward pass that
// checks every overflow bit is set exactly when an entry of a later
// bucket has its home at or before it.
func (s *Store) verifyStructure3() error {
	h := s.hdr
	// A record is live when the lookup of its key ends at an out-of-line
	// entry pointing to it.
	live, err := s.scanRecords(func(key []byte, off uint64) bool {
		_, b, slot, ok := s.find3(key, s.hash(key))
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
		var ferr error
		err := parseBucket(s.bucket(j), func(e bucketEntry) bool {
			key, _, err := s.entryKey(e)
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

// inspect3 fills the index part of st for a version-3 file and adds the
// inline entries' sizes to the key and value histograms.
func (s *Store) inspect3(st *Stats) []error {
	var errs []error
	total := s.hdr.totalBuckets()
	st.Buckets, st.IndexBuckets = s.buckets, total
	var probeSum, used uint64
	for j := range total {
		bk := s.bucket(j)
		if bk[bucketFlags]&bucketOverflow != 0 {
			st.OverflowBuckets++
		}
		var count uint64
		err := parseBucket(bk, func(e bucketEntry) bool {
			count++
			used += uint64(e.end - e.pos)
			key, _, err := s.entryKey(e)
			if err != nil {
				st.BadSlots++
				return true
			}
			if e.inline {
				st.Inline++
				st.KeySizes.Add(uint64(len(e.key)))
				st.ValueSizes.Add(uint64(len(e.val)))
				st.KeyBytes += uint64(len(e.key))
				st.ValueBytes += uint64(len(e.val))
			} else {
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
			st.BadSlots++
			errs = append(errs, fmt.Errorf("bucket %d: %w", j, err))
		}
	}
	st.Slots = s.buckets
	st.LoadFactor = float64(used) / float64(total*bucketRoom)
	if good := st.Entries - min(st.Entries, st.BadSlots); good > 0 {
		st.MeanProbe = float64(probeSum) / float64(good)
	}
	st.DeadRecords = st.Records - min(st.Records, st.OutOfLine)
	return errs
}

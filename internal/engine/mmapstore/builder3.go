package mmapstore

import (
	"fmt"
	"math"
	"strconv"
)

// entrySize is the size of e's entry in a bucket.
func (b *Builder) entrySize(e pendingEntry) int {
	if e.off&inlineFlag == 0 {
		return outEntrySize
	}
	a := e.off &^ inlineFlag
	return 2 + int(b.inline[a]) + int(b.inline[a+1])
}

// keyOf returns the key of pending entry i (after the final flush).
func (b *Builder) keyOf(i int) ([]byte, error) {
	e := b.pending[i]
	if e.off&inlineFlag == 0 {
		return b.keyAt(e.off)
	}
	a := e.off &^ inlineFlag
	return b.inline[a+2 : a+2+uint64(b.inline[a])], nil
}

// writeBuckets places the keys in a version-3 index and writes it after
// the records; it returns the index fields of the header.
//
// The builder knows every key, so it places them in the order of their
// home buckets: bucket j takes first the entries carried over from
// earlier buckets (oldest first), then those whose home it is, each one
// that fits; what does not fit is carried to bucket j+1, and bucket j's
// overflow bit is set. A key therefore lies in its home bucket or a few
// after it, and a lookup of an absent key stops at the first bucket
// without the overflow bit. The index ends with MaxProbe−1 buckets after
// the last home bucket, so no probe wraps around.
func (b *Builder) writeBuckets(recEnd, idxOff uint64, interrupted func() error) (Header, error) {
	wrap := func(err error) error { return fmt.Errorf("mmapstore: build %s: %w", b.path, err) }
	n := len(b.pending)
	var bytes uint64
	for _, e := range b.pending {
		bytes += uint64(b.entrySize(e))
	}
	// Enough buckets for the entries' bytes and for their number (a
	// bucket holds at most 8) at the fill asked for.
	nb := uint64(math.Ceil(max(float64(bytes)/bucketRoom, float64(n)/maxBucketEntries) / b.opts.MaxLoad))
	nb = max(nb, 1)
	limit := uint64(b.opts.MaxProbe)
	if maxBuckets := (MaxFileSize - idxOff) / bucketSize; nb > maxBuckets || limit > maxBuckets-nb {
		return Header{}, wrap(fmt.Errorf("index of %d buckets: %w", nb, ErrTooLarge))
	}
	// Group the entries by home bucket (a counting sort, stable, so each
	// group stays in Add order): group j is order[start[j]:start[j+1]].
	start := make([]int, nb+1)
	for _, e := range b.pending {
		start[homeBucket(e.hash, nb)+1]++
	}
	for j := range nb {
		start[j+1] += start[j]
	}
	order := make([]int, n)
	next := append([]int(nil), start[:nb]...)
	for i, e := range b.pending {
		j := homeBucket(e.hash, nb)
		order[next[j]] = i
		next[j]++
	}
	next = nil
	entries, err := b.dropDuplicates(order, start)
	if err != nil {
		return Header{}, err
	}
	if err := interrupted(); err != nil {
		return Header{}, err
	}
	if err := b.startIndex(recEnd, idxOff); err != nil {
		return Header{}, err
	}
	bs := 1 << b.opts.blockShift
	chunk := make([]byte, 0, 64<<10) // a multiple of the block size
	flush := func() error {
		if len(chunk) == cap(chunk) {
			if err := b.writeIndexChunk(chunk, bs); err != nil {
				return wrap(err)
			}
			chunk = chunk[:0]
		}
		return nil
	}
	var carry, left []int
	var maxProbe, written uint64
	for j := uint64(0); j < nb || len(carry) > 0; j++ {
		bk := chunk[len(chunk) : len(chunk)+bucketSize]
		clear(bk)
		used, count := bucketData, 0
		left = left[:0]
		place := func(i int) {
			e := b.pending[i]
			size := b.entrySize(e)
			if used+size > bucketFlags || count == maxBucketEntries {
				left = append(left, i)
				return
			}
			if e.off&inlineFlag != 0 {
				a := e.off &^ inlineFlag
				copy(bk[used:], b.inline[a:a+uint64(size)])
			} else {
				appendOutOfLine(bk[used:used], e.hash, e.off)
			}
			bk[count] = bucketTag(e.hash)
			bk[8+count] = byte(used)
			used += size
			count++
			maxProbe = max(maxProbe, j-homeBucket(e.hash, nb)+1)
		}
		for _, i := range carry {
			place(i)
		}
		if j < nb {
			for _, i := range order[start[j]:start[j+1]] {
				if i >= 0 {
					place(i)
				}
			}
		}
		for _, i := range left {
			if d := j + 2 - homeBucket(b.pending[i].hash, nb); d > limit {
				key, _ := b.keyOf(i)
				return Header{}, wrap(fmt.Errorf("%w: key %s would be %d buckets from its home bucket (limit %d): the keys' hashes collide (adversarial keys?)",
					ErrProbeLimit, strconv.Quote(string(clip(key))), d, limit))
			}
		}
		bk[bucketFlags] = byte(count)
		if len(left) > 0 {
			bk[bucketFlags] |= bucketOverflow
		}
		chunk = chunk[:len(chunk)+bucketSize]
		written++
		if err := flush(); err != nil {
			return Header{}, err
		}
		carry, left = left, carry
	}
	h := Header{Entries: entries, Records: b.records, Slots: nb, MaxProbe: maxProbe}
	for total := h.totalBuckets(); written < total; written++ {
		chunk = append(chunk, make([]byte, bucketSize)...)
		if err := flush(); err != nil {
			return Header{}, err
		}
	}
	if err := b.writeIndexChunk(chunk, bs); err != nil {
		return Header{}, wrap(err)
	}
	h.IndexLength = written * bucketSize
	for _, e := range b.pending {
		if e.off&inlineFlag != 0 {
			b.res.Inline++
		}
	}
	return h, nil
}

// dropDuplicates finds keys added more than once: equal keys have equal
// hashes, so they are in one home group. Under DupError the first pair
// fails the build; under DupLastWins every Add but the last of a key is
// removed from order (set to -1) and, if its record is in the records
// section, stays there as a dead record. It returns the number of keys.
func (b *Builder) dropDuplicates(order, start []int) (uint64, error) {
	entries := uint64(len(order))
	for j := range len(start) - 1 {
		g := order[start[j]:start[j+1]]
		for x := 1; x < len(g); x++ {
			i := g[x]
			h := b.pending[i].hash
			for y := range x {
				k := g[y]
				if k < 0 || b.pending[k].hash != h {
					continue
				}
				same, k2, err := b.sameKey(k, i)
				if err != nil {
					return 0, err
				}
				if !same {
					continue
				}
				if b.opts.Duplicates == DupError {
					return 0, fmt.Errorf("mmapstore: build %s: %w", b.path, &DuplicateKeyError{Key: k2, First: int64(k), Second: int64(i)})
				}
				g[y] = -1
				entries--
				b.res.Shadowed++
			}
		}
	}
	return entries, nil
}

// sameKey reports whether pending entries i and j hold the same key, and
// returns j's key.
func (b *Builder) sameKey(i, j int) (bool, []byte, error) {
	k1, err := b.keyOf(i)
	if err != nil {
		return false, nil, err
	}
	k1 = append([]byte(nil), k1...) // keyAt reuses no buffer, but keyOf may return the arena
	k2, err := b.keyOf(j)
	if err != nil {
		return false, nil, err
	}
	return string(k1) == string(k2), k2, nil
}

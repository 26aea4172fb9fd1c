package mmapstore

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/cachebench/cachebench/internal/engine/prefetch"
	"github.com/cespare/xxhash/v2"
)

// pendingEntry is one Add: the key's hash and its record's offset in the
// file or, with inlineFlag set, its inline entry's offset in the arena.
type pendingEntry struct{ hash, off uint64 }

// inlineFlag marks a pendingEntry whose entry is in Builder.inline.
const inlineFlag = 1 << 63

// startIndex writes the zero padding between the records and the index
// and closes the last records block.
func (b *Builder) startIndex(recEnd, idxOff uint64) error {
	var zero [bucketSize]byte
	if _, err := b.f.Write(zero[:idxOff-recEnd]); err != nil {
		return fmt.Errorf("mmapstore: build %s: %w", b.path, err)
	}
	if b.blkFill > 0 {
		b.endBlock()
	}
	return nil
}

// indexWriter buffers the index as it is built and writes it in chunks,
// appending the checksum of each index block.
type indexWriter struct {
	b     *Builder
	chunk []byte
}

// indexChunk is a multiple of every block size and of the bucket size,
// so chunks end on block boundaries.
const indexChunk = 64 << 10

func (b *Builder) newIndexWriter() *indexWriter {
	return &indexWriter{b: b, chunk: make([]byte, 0, indexChunk)}
}

// room returns the next n zero bytes of the index (n divides
// indexChunk), writing out the chunk before if it is full.
func (w *indexWriter) room(n int) ([]byte, error) {
	if len(w.chunk)+n > cap(w.chunk) {
		if err := w.write(); err != nil {
			return nil, err
		}
	}
	p := w.chunk[len(w.chunk) : len(w.chunk)+n]
	clear(p)
	w.chunk = w.chunk[:len(w.chunk)+n]
	return p, nil
}

// close writes what is buffered.
func (w *indexWriter) close() error { return w.write() }

// write writes the chunk to the file and appends the checksum of each
// block it holds; it holds whole blocks except at the end of the index.
func (w *indexWriter) write() error {
	b, bs := w.b, 1<<w.b.opts.blockShift
	for p := 0; p < len(w.chunk); p += bs {
		b.sums = append(b.sums, uint32(xxhash.Sum64(w.chunk[p:min(p+bs, len(w.chunk))])))
	}
	if _, err := b.f.Write(w.chunk); err != nil {
		return fmt.Errorf("mmapstore: build %s: %w", b.path, err)
	}
	w.chunk = w.chunk[:0]
	return nil
}

// entrySize is the size of e's entry in a bucket.
func (b *Builder) entrySize(e pendingEntry) int {
	if e.off&inlineFlag == 0 {
		return outEntrySize
	}
	a := e.off &^ inlineFlag
	return b.inlineKeyStart(a) + int(b.inline[a]) + int(b.inline[a+1]&inlineLenMask)
}

// inlineKeyStart is where the key of the inline entry at a in the arena
// starts, relative to a: after the lengths and the type byte if any.
func (b *Builder) inlineKeyStart(a uint64) int {
	if b.inline[a+1]&inlineTyped != 0 {
		return 3
	}
	return 2
}

// keyOf returns the key of pending entry e (after the final flush).
func (b *Builder) keyOf(e pendingEntry) ([]byte, error) {
	if e.off&inlineFlag == 0 {
		return b.keyAt(e.off)
	}
	a := e.off &^ inlineFlag
	k := a + uint64(b.inlineKeyStart(a))
	return b.inline[k : k+uint64(b.inline[a])], nil
}

// writeBuckets places the keys in the index and writes it after
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
	// group stays in Add order): group j is sorted[start[j]:start[j+1]].
	// Placing them then reads the entries in order, not at random.
	start := make([]int, nb+1)
	for _, e := range b.pending {
		start[homeBucket(e.hash, nb)+1]++
	}
	for j := range nb {
		start[j+1] += start[j]
	}
	sorted := make([]placedEntry, n)
	next := append([]int(nil), start[:nb]...)
	for i, e := range b.pending {
		j := homeBucket(e.hash, nb)
		sorted[next[j]] = placedEntry{pendingEntry: e, add: i, size: b.entrySize(e), home: j}
		next[j]++
	}
	next = nil
	b.pending = nil // sorted holds them now; let the memory go
	entries, err := b.dropDuplicates(sorted, start)
	if err != nil {
		return Header{}, err
	}
	if err := interrupted(); err != nil {
		return Header{}, err
	}
	if err := b.startIndex(recEnd, idxOff); err != nil {
		return Header{}, err
	}
	w := b.newIndexWriter()
	var carry, left []int
	var maxProbe, written uint64
	// The inline entries are copied from the arena, which is in Add
	// order: each copy would be a cache miss waited for in turn, so the
	// entries of the group placeAhead buckets on are prefetched.
	const placeAhead = 8
	var pf [4 * maxBucketEntries]uintptr
	for j := uint64(0); j < nb || len(carry) > 0; j++ {
		if k := j + placeAhead; k < nb {
			n := 0
			for i := start[k]; i < start[k+1] && n < len(pf); i++ {
				if off := sorted[i].off; off&inlineFlag != 0 {
					pf[n] = uintptr(unsafe.Pointer(&b.inline[off&^inlineFlag]))
					n++
				}
			}
			prefetch.Lines(&pf[0], n)
		}
		bk, err := w.room(bucketSize)
		if err != nil {
			return Header{}, err
		}
		used, count := bucketData, 0
		left = left[:0]
		place := func(i int) {
			e := &sorted[i]
			size := e.size
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
			maxProbe = max(maxProbe, j-e.home+1)
		}
		for _, i := range carry {
			place(i)
		}
		if j < nb {
			for i := start[j]; i < start[j+1]; i++ {
				if sorted[i].add >= 0 {
					place(i)
				}
			}
		}
		for _, i := range left {
			if d := j + 2 - sorted[i].home; d > limit {
				key, _ := b.keyOf(sorted[i].pendingEntry)
				return Header{}, wrap(fmt.Errorf("%w: key %s would be %d buckets from its home bucket (limit %d): the keys' hashes collide (adversarial keys?)",
					ErrProbeLimit, strconv.Quote(string(clip(key))), d, limit))
			}
		}
		bk[bucketFlags] = byte(count)
		if len(left) > 0 {
			bk[bucketFlags] |= bucketOverflow
		}
		written++
		carry, left = left, carry
	}
	h := Header{Entries: entries, Records: b.records, Buckets: nb, MaxProbe: maxProbe}
	for total := h.totalBuckets(); written < total; written++ {
		if _, err := w.room(bucketSize); err != nil {
			return Header{}, err
		}
	}
	if err := w.close(); err != nil {
		return Header{}, err
	}
	h.IndexLength = written * bucketSize
	for _, e := range sorted {
		if e.add >= 0 && e.off&inlineFlag != 0 {
			b.res.Inline++
		}
	}
	return h, nil
}

// placedEntry is a pendingEntry sorted into its home group.
type placedEntry struct {
	pendingEntry
	add  int    // its position among the Add calls; -1 once shadowed by a later Add of its key
	size int    // its entry's size in a bucket
	home uint64 // its home bucket
}

// dropDuplicates finds keys added more than once: equal keys have equal
// hashes, so they are in one home group. Under DupError the first pair
// fails the build; under DupLastWins every Add but the last of a key is
// marked shadowed (add = -1) and, if its record is in the records
// section, stays there as a dead record. It returns the number of keys.
func (b *Builder) dropDuplicates(sorted []placedEntry, start []int) (uint64, error) {
	entries := uint64(len(sorted))
	for j := range len(start) - 1 {
		g := sorted[start[j]:start[j+1]]
		for x := 1; x < len(g); x++ {
			h := g[x].hash
			for y := range x {
				if g[y].add < 0 || g[y].hash != h {
					continue
				}
				same, k2, err := b.sameKey(g[y].pendingEntry, g[x].pendingEntry)
				if err != nil {
					return 0, err
				}
				if !same {
					continue
				}
				if b.opts.Duplicates == DupError {
					return 0, fmt.Errorf("mmapstore: build %s: %w", b.path, &DuplicateKeyError{Key: k2, First: int64(g[y].add), Second: int64(g[x].add)})
				}
				g[y].add = -1
				entries--
				b.res.Shadowed++
			}
		}
	}
	return entries, nil
}

// sameKey reports whether pending entries e1 and e2 hold the same key,
// and returns e2's key.
func (b *Builder) sameKey(e1, e2 pendingEntry) (bool, []byte, error) {
	k1, err := b.keyOf(e1)
	if err != nil {
		return false, nil, err
	}
	k1 = append([]byte(nil), k1...) // keyAt reuses no buffer, but keyOf may return the arena
	k2, err := b.keyOf(e2)
	if err != nil {
		return false, nil, err
	}
	return string(k1) == string(k2), k2, nil
}

package shardcache

// ghost remembers the hashes of keys recently evicted from the window
// (S3-FIFO's ghost queue), 2 bytes per key: each word is a bucket of four
// 16-bit tags in insertion order, and adding a tag shifts the bucket's
// oldest out, so a tag lasts about four additions to its bucket, as many
// as the ghost has tags in all. A tag's low bit is always set (0 is an
// empty place) and the next one says whether a contest refused the key
// (only those returns are the climber's evidence); the other 14 bits
// identify it. Like the sketch it lives off the Go heap and is only
// touched under the shard's exclusive lock.
type ghost struct {
	words []uint64
	// used is set by the first add: until then take need not load a
	// bucket (a random access on every insert while the cache fills).
	used bool
}

// ghostContested is the tag bit of a key a contest refused.
const ghostContested = 2

// place returns the bucket and the tag (low bit set, contested bit clear)
// of the 23 hash bits a slot keeps.
func (g *ghost) place(hh uint64) (*uint64, uint64) {
	x := mix(hh ^ 0x5bd1e995)
	return &g.words[(x&(1<<32-1)*uint64(len(g.words)))>>32], x>>48&^ghostContested | 1
}

// add remembers a key, and whether a contest refused it.
func (g *ghost) add(hh uint64, contested bool) {
	if g.words == nil {
		return
	}
	p, tag := g.place(hh)
	if contested {
		tag |= ghostContested
	}
	*p = *p<<16 | tag
	g.used = true
}

// take reports whether the ghost remembers the key, whether a contest
// refused it, and whether its tag was the newest in its bucket (fresh: no
// key has been added to the bucket since, so it left the window within
// about a quarter of the ghost's length of evictions), and forgets it.
func (g *ghost) take(hh uint64) (found, contested, fresh bool) {
	if !g.used {
		return false, false, false
	}
	p, tag := g.place(hh)
	for sh := uint(0); sh < 64; sh += 16 {
		if t := *p >> sh & 0xffff; t&^ghostContested == tag {
			*p &^= 0xffff << sh
			return true, t&ghostContested != 0, sh == 0
		}
	}
	return false, false, false
}

package shardcache

// ghost remembers the hashes of keys the window evicted (S3-FIFO's ghost
// queue), 2 bytes per key: each word is a bucket of four 16-bit tags in
// insertion order, the oldest shifted out by an add. A tag's low bit is
// set (0 is an empty place), the next says whether a contest refused the
// key, and 14 bits identify it.
type ghost struct {
	words []uint64
	used  bool // set by the first add: until then take loads no bucket
}

const ghostContested = 2 // the tag bit of a key a contest refused

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
// refused it, and whether its tag is the newest of its bucket (fresh), and
// forgets it.
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

package mmapstore

import (
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Hash function identifiers stored in the header.
const (
	// HashCB1 is cachebench's hash, version 1 (see FORMAT.md). Keys of up
	// to 16 bytes are read as two overlapping little-endian words and
	// mixed with two folded 64×64→128-bit multiplications with the seed;
	// longer keys go through xxh64 (cespare/xxhash, seed 0), whose result
	// is mixed with the seed the same way. The short path takes a handful
	// of instructions: in a lookup whose key is not in cache every
	// instruction that waits for it occupies the CPU's scheduler, and
	// fewer of them let the next lookups start sooner.
	//
	// The seed moves keys between buckets from one build to the next; it
	// does not make the hash a keyed PRF, so keys crafted against a known
	// seed can still collide (the builder's probe limit turns that into
	// an error).
	HashCB1 uint16 = 1
	// hashTestConst and hashTestHome0 are only accepted in tests (see
	// testHashes): they make every key collide, to test bounded probing.
	hashTestConst uint16 = 0xfff0
	hashTestHome0 uint16 = 0xfff2
)

// testHashes holds hash functions only tests register; production files
// carrying such an id are rejected as corrupt.
var testHashes map[uint16]func(key []byte, seed uint64) uint64

// Odd constants of the mixer (the 64-bit golden ratio and splitmix64's).
const (
	mixK1 = 0x9e3779b97f4a7c15
	mixK2 = 0xbf58476d1ce4e5b9
	mixK3 = 0x94d049bb133111eb
)

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashKey is HashCB1.
func hashKey(key []byte, seed uint64) uint64 {
	n := len(key)
	var a, b uint64
	switch {
	case n > 16:
		a, b = xxhash.Sum64(key), 0
	case n >= 8:
		a = binary.LittleEndian.Uint64(key)
		b = binary.LittleEndian.Uint64(key[n-8:])
	case n >= 4:
		a = uint64(binary.LittleEndian.Uint32(key))
		b = uint64(binary.LittleEndian.Uint32(key[n-4:]))
	case n > 0:
		a = uint64(key[0])<<16 | uint64(key[n>>1])<<8 | uint64(key[n-1])
	}
	return hashWords(a, b, n, seed)
}

// hashWords is HashCB1's mixing of the words a and b read from an n-byte
// key; small enough to inline where a loop reads the words itself
// (getBatch, for keys of 8 to 16 bytes).
func hashWords(a, b uint64, n int, seed uint64) uint64 {
	h := mix(a^seed^mixK1, b^uint64(n)^mixK2)
	return mix(h^mixK3, seed^mixK1)
}

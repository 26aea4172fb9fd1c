package workloads

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// The one key and value format of cachebench (run, gc-pause, the null
// probe and the bare-loop cross-check all use it).
//
// Keys: key index i is the ASCII string "key_" followed by i in decimal
// without leading zeros ("key_0", "key_1234"), the shape of the keys of
// the peers' own published benchmarks.
//
// Values: the value written for key index i, write version v, under seed s,
// with length n (n ≥ MinValueSize) is, byte for byte:
//
//	[0, 4)      T, little-endian uint32, T = Codec(s).Tag(key, v), key the
//	            bytes of key index i ("key_%d")
//	[4, n-4)    the body:
//	              if n ≥ 16: [4, 8) uint32(i) and [8, 12) uint32(v), little
//	              endian (read only to describe a wrong value: which key and
//	              version it claims to be); then filler
//	              otherwise: filler only
//	            filler byte j (j counted from 0 at the start of the value) is
//	            byte(T >> (8·(j mod 4))) XOR byte(j)
//	[n-4, n)    ^(T XOR uint32(n)): the tag xored with the length, every bit
//	            inverted, little-endian uint32
//
// A value read back is verified from its first and last four bytes alone
// (Check, or CheckTag with a tag computed beforehand): no expected copy is
// read, so verifying costs no memory traffic beyond the bytes the adapter
// just returned. The head must be the tag of the key and version expected
// and the tail that tag with the length of the bytes received, so the
// check rejects another key's value, a stale version, a value whose head
// and tail come from different writes (a torn value), and a truncated or
// extended value (its tail is then not where the writer put it, or names
// another length); a value of all zeros fails because its tail is not the
// inverse of its head with its length. Two distinct writes share a tag
// with probability 2^-32.
//
// Tag reads the key as two words that cover all its bytes (keyWords) and
// mixes them and the version with one 64×64→128-bit multiplication. It is
// computed from the key's bytes rather than its index, and the length is
// kept out of it, so that the runner computes each operation's tag once,
// when it lays out the stream (Op.Tag), and the null probe computes it
// from the key it is given without parsing a decimal number or knowing
// the workload's value sizes.
//
// The default values of insert-lookup and mixed (ValueMin = ValueMax = 0)
// have the length of "val_%d" (4 plus the digits of i), at least
// MinValueSize: the published shape of short values, now self-checking.

// MinValueSize is the shortest value the codec writes: a head and a tail
// tag of four bytes each.
const MinValueSize = 8

// diagValueSize is the shortest value that also carries its key index and
// version in the body, for diagnostics.
const diagValueSize = 16

// Multipliers of Tag: large odd constants with well spread bits (the
// golden ratio, and splitmix64's and murmur3's finalizer constants).
const (
	tagIdx  = 0x9e3779b97f4a7c15
	tagVer  = 0xbf58476d1ce4e5b9
	tagLen  = 0x94d049bb133111eb
	tagMix  = 0xff51afd7ed558ccd
	tagSeed = 0xc4ceb9fe1a85ec53
)

// Codec writes and checks the values of one seed. The zero value is the
// codec of seed 0; NewCodec makes the codec of any seed.
type Codec struct {
	seed uint64
	key  uint64
}

// NewCodec returns the codec of seed.
func NewCodec(seed uint64) Codec {
	return Codec{seed: seed, key: trace.Mix64(seed ^ tagSeed)}
}

// Seed returns the seed the codec was made with.
func (c Codec) Seed() uint64 { return c.seed }

// Tag is the 32-bit tag of the values of key at version v. Keys of 8 to
// 16 bytes (every key from index 1,000 to 999,999,999,999) take the short
// path.
func (c Codec) Tag(key []byte, v uint32) uint32 {
	var a, b uint64
	if k := len(key); k >= 8 && k <= 16 {
		a, b = binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[k-8:])
	} else {
		a, b = keyWords(key)
	}
	h := fold(a^c.key^uint64(v)*tagVer, b^tagIdx^uint64(len(key))*tagLen)
	return uint32(h) ^ uint32(h>>32)
}

// keyWords is Tag's path for keys of other lengths: two words that
// together hold every byte of a key shorter than 8 bytes (with the length,
// they identify it), and xxhash64 of a key longer than 16.
func keyWords(key []byte) (uint64, uint64) {
	n := len(key)
	switch {
	case n > 16:
		return xxhash.Sum64(key), uint64(n)
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(key)), uint64(binary.LittleEndian.Uint32(key[n-4:]))
	case n > 0:
		return uint64(key[0])<<16 | uint64(key[n/2])<<8 | uint64(key[n-1]), 0
	}
	return 0, 0
}

// fold is the high and the low word of the 128-bit product a·b, xored.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// PutValue writes the value of key index i, version v into dst; the
// value's length is len(dst), at least MinValueSize (shorter buffers
// panic: a caller bug, since every size is validated before generation).
// It does not allocate.
func (c Codec) PutValue(dst []byte, i uint64, v uint32) {
	n := len(dst)
	if n < MinValueSize {
		panicShort(n)
	}
	var kb [MaxKeySize]byte
	t := c.Tag(AppendKey(kb[:0], i), v)
	binary.LittleEndian.PutUint32(dst, t)
	body := 4
	if n >= diagValueSize {
		binary.LittleEndian.PutUint32(dst[4:], uint32(i))
		binary.LittleEndian.PutUint32(dst[8:], v)
		body = 12
	}
	// The filler four bytes at a time (byte j of the word at j0 is
	// byte(t>>(8·(j&3))) ^ byte(j), j0 a multiple of 4); the last word may
	// run into the tail, which is written after it.
	for j := body; j < n-4; j += 4 {
		b := uint32(byte(j))
		binary.LittleEndian.PutUint32(dst[j:], t^(b*0x01010101+0x03020100))
	}
	binary.LittleEndian.PutUint32(dst[n-4:], ^(t ^ uint32(n)))
}

// panicShort is PutValue's failure, out of line so that PutValue stays
// small.
func panicShort(n int) {
	panic("workloads: value buffer of " + strconv.Itoa(n) + " bytes, need at least " + strconv.Itoa(MinValueSize))
}

// AppendValue appends the n-byte value of key index i, version v to dst.
// With room in dst it does not allocate.
func (c Codec) AppendValue(dst []byte, i uint64, v uint32, n int) []byte {
	l := len(dst)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	dst = dst[:l+n]
	c.PutValue(dst[l:], i, v)
	return dst
}

// Check reports whether val is the value of key at version v. It reads
// the first and last four bytes of val, and key, and nothing else.
func (c Codec) Check(val, key []byte, v uint32) bool {
	return CheckTag(val, c.Tag(key, v))
}

// CheckTag reports whether val is a value with tag: tag at its head, and
// at its tail the tag with val's length (see the format above). The
// runner's streams carry each operation's tag (Op.Tag), so its check is
// two compares, inlined in the timed loop.
func CheckTag(val []byte, tag uint32) bool {
	n := len(val)
	return n >= MinValueSize && binary.LittleEndian.Uint32(val) == tag && binary.LittleEndian.Uint32(val[n-4:]) == ^(tag^uint32(n))
}

// CheckIndex is Check for key index i (it formats the key).
func (c Codec) CheckIndex(val []byte, i uint64, v uint32) bool {
	var kb [MaxKeySize]byte
	return c.Check(val, AppendKey(kb[:0], i), v)
}

// CheckFull is Check plus every body byte, for tests and diagnostics (it
// reads the whole value).
func (c Codec) CheckFull(val []byte, i uint64, v uint32) bool {
	if !c.CheckIndex(val, i, v) {
		return false
	}
	n := len(val)
	t := binary.LittleEndian.Uint32(val)
	body := 4
	if n >= diagValueSize {
		if binary.LittleEndian.Uint32(val[4:]) != uint32(i) || binary.LittleEndian.Uint32(val[8:]) != v {
			return false
		}
		body = 12
	}
	for j := body; j < n-4; j++ {
		if val[j] != byte(t>>(8*(j&3)))^byte(j) {
			return false
		}
	}
	return true
}

// Claims returns the key index and version a value of at least 16 bytes
// says it belongs to, and whether its tags are consistent with that claim.
// It is for describing a wrong value; correctness is Check's to decide.
func (c Codec) Claims(val []byte) (i uint64, v uint32, ok bool) {
	if len(val) < diagValueSize {
		return 0, 0, false
	}
	i = uint64(binary.LittleEndian.Uint32(val[4:]))
	v = binary.LittleEndian.Uint32(val[8:])
	return i, v, c.CheckIndex(val, i, v)
}

// ShortValueSize is the length of the default (unsized) value of key index
// i: that of "val_%d", at least MinValueSize.
func ShortValueSize(i uint64) int { return max(MinValueSize, 4+digits(i)) }

// KeyPrefix starts every key.
const KeyPrefix = "key_"

// AppendKey appends key index i ("key_%d") to dst.
func AppendKey(dst []byte, i uint64) []byte {
	dst = append(dst, KeyPrefix...)
	return strconv.AppendUint(dst, i, 10)
}

// KeySize is the length of key i.
func KeySize(i uint64) int { return len(KeyPrefix) + digits(i) }

// MaxKeySize is the length of the longest key any uint32 index can have.
const MaxKeySize = len(KeyPrefix) + 10

// ParseKey returns the key index of a well-formed key ("key_" and 1 to 10
// decimal digits, no leading zero unless the index is 0, value < 2^32).
func ParseKey(key []byte) (uint64, bool) {
	n := len(key)
	if n <= len(KeyPrefix) || n > MaxKeySize || string(key[:len(KeyPrefix)]) != KeyPrefix {
		return 0, false
	}
	d := key[len(KeyPrefix):]
	if d[0] == '0' && len(d) > 1 {
		return 0, false
	}
	var x uint64
	for _, b := range d {
		b -= '0'
		if b > 9 {
			return 0, false
		}
		x = x*10 + uint64(b)
	}
	return x, x < 1<<32
}

func digits(i uint64) int {
	d := 1
	for ; i >= 10; i /= 10 {
		d++
	}
	return d
}

package gcpause

import (
	"fmt"

	"github.com/cachebench/cachebench/internal/workloads"
)

// KeyLen is the length of the longest key: "key_" and the ten digits of
// an index below MaxEntries. Keys have the one format of cachebench
// (workloads.AppendKey, "key_%d"), so shorter indexes give shorter keys.
const KeyLen = workloads.MaxKeySize

// MinValueSize is the smallest value size: the codec's head and tail tags
// plus the key index and version it carries for diagnostics.
const MinValueSize = 16

// MaxValueSize is the largest value size the command accepts.
const MaxValueSize = 1 << 20

// MaxEntries bounds --entries: key indexes fit the codec's 32 bits, and
// more than 2^31 entries of at least 21 bytes could not fit any machine
// this tool runs on anyway.
const MaxEntries = 1 << 31

// ValueSeed is the codec seed of gc-pause values (the default seed of
// cachebench run).
const ValueSeed = 1

var codec = workloads.NewCodec(ValueSeed)

// FormatKey writes key i ("key_%d") into dst, which must hold KeyLen
// bytes, and returns the key: a prefix of dst, as long as the key. It does
// not allocate, so a fill can reuse one buffer for every key.
func FormatKey(dst []byte, i uint64) []byte {
	return workloads.AppendKey(dst[:0:KeyLen], i)
}

// FillValue writes the value of key i into dst (len(dst) ≥ MinValueSize
// bytes) in the workloads codec, version 0, seed ValueSeed. It does not
// allocate.
func FillValue(dst []byte, i uint64) {
	if len(dst) < MinValueSize {
		panic(fmt.Sprintf("gcpause: value buffer of %d bytes, need at least %d", len(dst), MinValueSize))
	}
	codec.PutValue(dst, i, 0)
}

// DecodeValue returns the key index a value claims to belong to, and
// whether its tags are consistent with that index and its length. It is
// for diagnostics (whose value came back); correctness is VerifyValue's.
func DecodeValue(v []byte) (idx uint64, ok bool) {
	idx, _, ok = codec.Claims(v)
	return idx, ok
}

// VerifyValue reports whether got is exactly the value of key i with the
// given size (every byte is checked). scratch is no longer needed (the
// codec checks a value without an expected copy) and is ignored.
func VerifyValue(got, scratch []byte, i uint64, size int) bool {
	return len(got) == size && codec.CheckFull(got, i, 0)
}

package workloads

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/cachebench/cachebench/internal/machine"
)

// HotBit marks an operation on a hot key in Op.Key; KeyMask extracts the
// key index (MaxKeys leaves bits 30 and 31 free).
const (
	HotBit  = 1 << 30
	KeyMask = HotBit - 1
)

// Op is one operation of a Stream.
type Op struct {
	// KeyEnd is where the operation's key ends in Stream.Keys; it starts
	// where the previous operation's key ends (Stream.Start for the first).
	KeyEnd uint32
	// Key is the key index, with WriteBit for a write (mixed) and HotBit
	// for a hot key (hotcold, zipf).
	Key uint32
	// Tag is the codec tag of the key's values at version 0, computed
	// when the stream is laid out, so that checking a value read back
	// costs two compares (CheckTag) and no hashing. Zero in read-vector,
	// whose vectors are checked from the key index (VectorOK).
	Tag uint32
}

// Stream is one access sequence laid out in the order a worker consumes
// it: the key bytes of operation j+1 follow those of operation j in Keys,
// and Ops is read front to back, so fetching the next operation is a
// sequential read that the hardware prefetcher serves instead of two
// dependent cache misses (a slice header at a random index, then the key
// bytes elsewhere). Verifying a value needs only Op.Tag, so a worker
// touches no other harness memory per operation.
//
// Values to write are found through ValRefs. Short values (the default,
// ShortValueSize) are copied into Vals in operation order; sized values
// are never copied per operation: ValRefs point into the workload's one
// value arena. Memory per operation: 12 bytes of Op plus the key bytes
// (mean key length: 10.9 bytes at 1,000,000 keys), and for a stream that
// writes 8 bytes of ValRef plus, for short values only, the value bytes.
//
// A worker takes a contiguous range of operations (Slice), whose keys are
// then contiguous too.
type Stream struct {
	// Keys holds the key bytes of every operation back to back.
	Keys []byte
	// Start is where the first operation's key starts in Keys.
	Start uint32
	// Ops are the operations in order.
	Ops []Op
	// Vals holds the values ValRefs point into.
	Vals []byte
	// ValRefs[j] locates operation j's value in Vals (see ValueAt); nil
	// for a stream that only reads.
	ValRefs []uint64
}

// valLenBits is the width of a value's length in a ValRef: up to 2^25 − 1
// bytes, above the largest --value-size (16 MiB).
const valLenBits = 25

// Len is the number of operations.
func (s *Stream) Len() int { return len(s.Ops) }

// KeyAt returns operation j's key.
func (s *Stream) KeyAt(j int) []byte {
	start := s.Start
	if j > 0 {
		start = s.Ops[j-1].KeyEnd
	}
	end := s.Ops[j].KeyEnd
	return s.Keys[start:end:end]
}

// ValueAt returns operation j's value; the stream must write.
func (s *Stream) ValueAt(j int) []byte {
	return RefValue(s.Vals, s.ValRefs[j])
}

// RefValue returns the value a ValRef locates in vals; the hot loops call
// it with the stream's fields held in locals.
func RefValue(vals []byte, ref uint64) []byte {
	off, n := ref>>valLenBits, ref&(1<<valLenBits-1)
	return vals[off : off+n : off+n]
}

// Slice returns operations [lo, hi) as a stream of their own, sharing
// memory with s.
func (s *Stream) Slice(lo, hi int) *Stream {
	sub := &Stream{Keys: s.Keys, Start: s.Start, Ops: s.Ops[lo:hi], Vals: s.Vals}
	if lo > 0 {
		sub.Start = s.Ops[lo-1].KeyEnd
	}
	if s.ValRefs != nil {
		sub.ValRefs = s.ValRefs[lo:hi]
	}
	return sub
}

// Split cuts s into parts contiguous ranges of nearly equal length, one
// per worker (the first ones may be one operation longer).
func (s *Stream) Split(parts int) []*Stream {
	n := s.Len()
	out := make([]*Stream, parts)
	for i := range out {
		out[i] = s.Slice(n*i/parts, n*(i+1)/parts)
	}
	return out
}

// NewStream lays seq (key indexes, with WriteBit where the sequence has
// writes) out as a stream; writes says whether its operations need values.
// It runs before any clock starts.
func (w *Workload) NewStream(seq []uint32, writes bool) (*Stream, error) {
	var keyBytes, valBytes uint64
	short := w.Spec.ValueMax == 0
	for _, o := range seq {
		k := o &^ WriteBit
		keyBytes += w.keyOff[k+1] - w.keyOff[k]
		if writes && short {
			valBytes += w.valOff[k+1] - w.valOff[k]
		}
	}
	if keyBytes > math.MaxUint32 {
		return nil, fmt.Errorf("%d operations need %d bytes of key stream; at most 4 GiB per stream (lower --ops)", len(seq), keyBytes)
	}
	s := &Stream{}
	var err error
	if s.Ops, err = arenaSlice[Op](len(seq)); err != nil {
		return nil, err
	}
	if s.Keys, err = machine.Arena(int(keyBytes)); err != nil {
		return nil, err
	}
	if writes {
		if s.ValRefs, err = arenaSlice[uint64](len(seq)); err != nil {
			return nil, err
		}
		if short {
			if s.Vals, err = machine.Arena(int(valBytes)); err != nil {
				return nil, err
			}
		} else {
			s.Vals = w.vals
		}
	}
	var koff, voff uint64
	for j, o := range seq {
		k := o &^ WriteBit
		koff += uint64(copy(s.Keys[koff:], w.Key(k)))
		op := Op{KeyEnd: uint32(koff), Key: o}
		if w.vals != nil { // read-vector has no byte values: no tag
			op.Tag = binary.LittleEndian.Uint32(w.Value(k))
		}
		if w.IsHot(k) {
			op.Key |= HotBit
		}
		s.Ops[j] = op
		if !writes {
			continue
		}
		n := w.valOff[k+1] - w.valOff[k]
		off := w.valOff[k]
		if short {
			off = voff
			voff += uint64(copy(s.Vals[off:], w.Value(k)))
		}
		s.ValRefs[j] = off<<valLenBits | n
	}
	w.StreamBytes += int64(len(s.Ops))*int64(unsafe.Sizeof(Op{})) + int64(len(s.Keys)) + int64(len(s.ValRefs))*8
	if short {
		w.StreamBytes += int64(len(s.Vals))
	}
	return s, nil
}

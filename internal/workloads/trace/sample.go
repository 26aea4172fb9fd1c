package trace

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math"
)

// Sampling says which objects of a trace a sampled replay keeps: spatial
// sampling by key hash (SHARDS, Waldspurger et al., FAST 2015). An object
// is kept, with every one of its requests, when a seeded 64-bit hash of
// its ID falls below a threshold T; the share of objects kept, the rate,
// is T/2^64. A cache of C entries over the whole trace is then modelled by
// a cache of rate × C entries over the sample.
//
// With Max set the sample is of fixed size: it starts at Rate (1 when 0)
// and keeps at most Max distinct objects, lowering the threshold to the
// largest kept hash each time a new object would make one too many, so
// that the objects kept at the end are those of the Max smallest hashes
// seen (fixed-size SHARDS). The rate is then known only at the end.
type Sampling struct {
	// Rate is the share of objects kept, in (0, 1]; 0 means 1.
	Rate float64 `json:"rate"`
	// Max, if above 0, is the most distinct objects kept.
	Max int `json:"max_objects,omitempty"`
	// Seed seeds the hash, so that two seeds draw two independent samples.
	Seed uint64 `json:"seed"`
}

// On reports whether s samples at all: a rate below 1 or a maximum.
func (s Sampling) On() bool { return (s.Rate > 0 && s.Rate < 1) || s.Max > 0 }

// Validate checks s.
func (s Sampling) Validate() error {
	switch {
	case math.IsNaN(s.Rate) || s.Rate < 0 || s.Rate > 1:
		return fmt.Errorf("sampling rate must be in (0, 1], got %v", s.Rate)
	case s.Max < 0:
		return fmt.Errorf("sampled objects must be at least 1, got %d", s.Max)
	}
	return nil
}

// limit is the largest hash kept at rate r: hashes 0..limit are kept, so
// the rate is (limit+1)/2^64.
func limitOf(r float64) uint64 {
	if r <= 0 || r >= 1 {
		return math.MaxUint64
	}
	return uint64(math.Ldexp(r, 64)) - 1
}

// rateOf is the share of hashes at or below limit.
func rateOf(limit uint64) float64 {
	if limit == math.MaxUint64 {
		return 1
	}
	return math.Ldexp(float64(limit)+1, -64)
}

// KeyHash is the hash sampling decides by: a seeded splitmix64 finalizer
// over the object ID. It is a bijection of the ID for a given seed (every
// step is invertible), so two objects never share a hash, and it is not
// the hash of any cache the lab replays into, which hash the ID's bytes
// with their own functions and seeds: a sample that favoured one cache's
// shards or buckets would bias that cache's figures.
func KeyHash(id, seed uint64) uint64 { return Mix64(id ^ (seed * 0x9e3779b97f4a7c15)) }

// Mix64 is splitmix64's finalizer: a bijection of uint64 whose every
// output bit depends on every input bit.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Sampled describes a sample once it is drawn.
type Sampled struct {
	Sampling
	// FinalRate is the share of objects kept: Rate, or lower when Max
	// made the sample lower its threshold.
	FinalRate float64 `json:"final_rate"`
	// Limit is the largest hash kept: FinalRate is (Limit+1)/2^64.
	Limit uint64 `json:"hash_limit"`
	// InputRequests and InputBytes count the requests of the trace as
	// read, all of them, and their sizes, before sampling.
	InputRequests int64 `json:"input_requests"`
	InputBytes    int64 `json:"input_bytes"`
}

// sampleReader passes on the requests of the objects whose hash is at or
// below limit, and counts every request it reads.
type sampleReader struct {
	src   Reader
	seed  uint64
	limit uint64
	read  int64
	bytes int64
}

func (s *sampleReader) Next(q *Request) error {
	for {
		if err := s.src.Next(q); err != nil {
			return err
		}
		s.read++
		s.bytes += int64(q.Size)
		if KeyHash(q.ID, s.seed) <= s.limit {
			return nil
		}
	}
}

// hashHeap is a max-heap of the kept objects' hashes.
type hashHeap []uint64

func (h hashHeap) Len() int           { return len(h) }
func (h hashHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h hashHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hashHeap) Push(x any)        { *h = append(*h, x.(uint64)) }
func (h *hashHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fixedSampler is the fixed-size sample's pass: it passes on each request
// whose object is in the sample at that moment, and lowers limit as new
// objects arrive so that at most max objects are in it. Requests passed
// for an object that a later, smaller hash pushed out are dropped in a
// second pass at the final limit (NormalizeSampled), which only ever
// lowers, so every request of a finally kept object has been passed on.
type fixedSampler struct {
	sampleReader
	max  int
	kept map[uint64]struct{} // hashes of the objects in the sample
	heap hashHeap
}

func (s *fixedSampler) Next(q *Request) error {
	for {
		if err := s.sampleReader.Next(q); err != nil {
			return err
		}
		h := KeyHash(q.ID, s.seed)
		if _, ok := s.kept[h]; ok {
			return nil
		}
		heap.Push(&s.heap, h)
		s.kept[h] = struct{}{}
		if len(s.heap) > s.max {
			top := heap.Pop(&s.heap).(uint64)
			delete(s.kept, top)
			s.limit = top - 1 // top > every kept hash, so top >= 1
			if top == h {
				continue
			}
		}
		return nil
	}
}

// NormalizeSampled is Normalize of the requests of the objects s keeps,
// with the sample's description. Memory is that of Normalize over the
// sample, plus, with s.Max, a set and a heap of at most s.Max hashes; the
// fixed-size sample first writes the requests it passes on to an unnamed
// temp file in dir, then normalizes those of the objects still kept at
// the end.
func NormalizeSampled(src Reader, dir, name string, s Sampling) (*Normalized, Sampled, error) {
	if err := s.Validate(); err != nil {
		return nil, Sampled{}, err
	}
	out := Sampled{Sampling: s}
	base := sampleReader{src: src, seed: s.Seed, limit: limitOf(s.Rate)}
	if s.Max == 0 {
		n, err := Normalize(&base, dir, name)
		out.Limit, out.FinalRate, out.InputRequests, out.InputBytes = base.limit, rateOf(base.limit), base.read, base.bytes
		return n, out, emptySample(err, out)
	}
	fs := &fixedSampler{sampleReader: base, max: s.Max, kept: make(map[uint64]struct{}, s.Max+1)}
	tmp, err := spool(fs, dir)
	if err != nil {
		return nil, out, err
	}
	defer tmp.Close()
	out.Limit, out.FinalRate, out.InputRequests, out.InputBytes = fs.limit, rateOf(fs.limit), fs.read, fs.bytes
	sr := io.NewSectionReader(tmp.f, 0, math.MaxInt64)
	second := &sampleReader{src: NewOracleReader(tmp.f.Name(), newBufReader(sr)), seed: s.Seed, limit: fs.limit}
	n, err := Normalize(second, dir, name)
	return n, out, emptySample(err, out)
}

// emptySample says, of a sample with no request, that sampling emptied
// the trace: a trace with requests of which no object was kept.
func emptySample(err error, s Sampled) error {
	if errors.Is(err, ErrEmpty) && s.InputRequests > 0 {
		return fmt.Errorf("the sample at rate %g kept none of the %d requests (a higher rate keeps some): %w", s.FinalRate, s.InputRequests, err)
	}
	return err
}

// spool writes every request of r, as it comes, to a new unnamed
// oracleGeneral file in dir (the system temp dir when ""), made as
// Normalize makes its file; Close frees it.
func spool(r Reader, dir string) (_ *Normalized, err error) {
	s, err := createUnnamed(dir, "sample spool")
	if err != nil {
		return nil, err
	}
	if err := copyRecords(r, s.f, func(q *Request) error { q.Next = NoNext; return nil }); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

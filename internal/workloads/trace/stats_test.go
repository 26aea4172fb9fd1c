package trace

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cachebench/cachebench/internal/fit"
)

// sliceReader replays ids with unit sizes.
type sliceReader struct {
	ids []uint64
	i   int
}

func (s *sliceReader) Next(q *Request) error {
	if s.i == len(s.ids) {
		return io.EOF
	}
	*q = Request{ID: s.ids[s.i], Size: 1, Next: NoNext}
	s.i++
	return nil
}

// lruHitsBySimulation replays ids through a textbook LRU list.
func lruHitsBySimulation(ids []uint64, c int) int64 {
	var list []uint64 // most recent last
	var hits int64
	for _, id := range ids {
		if i := slices.Index(list, id); i >= 0 {
			hits++
			list = append(list[:i], list[i+1:]...)
		} else if len(list) == c {
			list = list[1:]
		}
		list = append(list, id)
	}
	return hits
}

func TestStatsAgainstBruteForce(t *testing.T) {
	// Hand-checked: a b c a b d a. Reuses: a at 3 (b, c since: 2), b at 4
	// (c, a: 2), a at 6 (b, d: 2). One-hit wonders: c and d.
	s, err := ComputeStats(&sliceReader{ids: []uint64{1, 2, 3, 1, 2, 4, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 7 || s.Distinct != 4 || s.OneHitWonders != 2 || s.Reuses != 3 || s.ReuseDistance[1].Value != 2 {
		t.Fatalf("stats %+v", s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 30; round++ {
		// Long enough to grow the Fenwick tree past its first size.
		n := 1000 + rng.IntN(100_000)
		objects := 1 + rng.IntN(3000)
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = uint64(rng.IntN(objects)) * 7919
		}
		s, err := ComputeStats(&sliceReader{ids: ids})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range s.LRUCapacities {
			if want := lruHitsBySimulation(ids, c); s.LRUHits[i] != want {
				t.Fatalf("round %d (%d requests, %d objects): LRU of %d entries: %d hits from distances, %d simulated", round, n, s.Distinct, c, s.LRUHits[i], want)
			}
		}
	}
}

// countingReader yields n requests to n distinct objects, or to one.
type countingReader struct {
	n, i     int64
	distinct bool
}

func (c *countingReader) Next(q *Request) error {
	if c.i == c.n {
		return io.EOF
	}
	c.i++
	id := uint64(0)
	if c.distinct {
		id = uint64(c.i)
	}
	*q = Request{ID: id, Size: 1, Next: NoNext}
	return nil
}

// A trace longer than the memory there is is refused with a
// *fit.TooBigError once its arrays would pass the limit, instead of
// growing until the process runs out of memory.
func TestStatsMemoryBound(t *testing.T) {
	lim := fit.Limits{Memory: 8 << 20, MemoryKnown: true, MemorySource: "test"}
	for _, distinct := range []bool{false, true} {
		_, err := ComputeStatsContext(context.Background(), &countingReader{n: 10_000_000, distinct: distinct}, lim)
		var tb *fit.TooBigError
		if !errors.As(err, &tb) || tb.Limit != lim.Memory || tb.Estimate <= lim.Memory {
			t.Errorf("distinct %v: %v, want a TooBigError over 8 MiB", distinct, err)
		}
	}
	// Under the limit the same reader runs to its end.
	s, err := ComputeStatsContext(context.Background(), &countingReader{n: 100_000}, lim)
	if err != nil || s.Requests != 100_000 {
		t.Fatalf("small trace: %+v %v", s.Summary, err)
	}
}

// A cancelled context stops the loop within checkEvery requests.
func TestStatsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &countingReader{n: 1 << 40}
	if _, err := ComputeStatsContext(ctx, r, fit.Limits{}); !errors.Is(err, context.Canceled) || r.i > checkEvery {
		t.Fatalf("cancelled: %v after %d requests", err, r.i)
	}
}

// The normalized copy stops at the free disk and the available memory
// instead of writing 24 B per request of a small compressed file until
// the disk is full; within them it is written whole.
func TestNormalizeBounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		lim      fit.Limits
		distinct bool
		resource string
	}{
		{"disk", fit.Limits{FreeDisk: 4 << 20, DiskKnown: true}, false, "disk"},
		{"memory", fit.Limits{Memory: 4 << 20, MemoryKnown: true, MemorySource: "test"}, true, "memory"},
	} {
		r := &countingReader{n: 10_000_000, distinct: c.distinct}
		_, err := normalizeWithin(r, dir, "zeros.zst", c.lim)
		var tb *fit.TooBigError
		if !errors.As(err, &tb) || tb.Resource != c.resource {
			t.Errorf("%s: %v, want a TooBigError for %s", c.name, err, c.resource)
			continue
		}
		if r.i > 1<<20 {
			t.Errorf("%s: read %d requests before refusing a 4 MiB limit", c.name, r.i)
		}
	}
	n, err := normalizeWithin(&countingReader{n: 100_000}, dir, "small", fit.Limits{FreeDisk: 4 << 20, DiskKnown: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Requests != 100_000 {
		t.Fatalf("within the limit: %d requests", n.Requests)
	}
}

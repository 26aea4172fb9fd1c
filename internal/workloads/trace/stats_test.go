package trace

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"
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

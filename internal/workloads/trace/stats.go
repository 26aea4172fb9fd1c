package trace

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// Stats describes the request pattern of a trace: what `cachebench trace
// stats` prints and the vendored traces' README quotes.
type Stats struct {
	Summary
	// OneHitWonders is the number of objects requested exactly once.
	OneHitWonders int `json:"one_hit_wonders"`
	// Reuses is the number of requests to an object requested before:
	// the hits of an unbounded cache.
	Reuses int64 `json:"reuses"`
	// ReuseDistance holds quantiles of the reuse distance of those
	// requests: the number of distinct other objects requested since the
	// previous request to the same object (its LRU stack distance: an LRU
	// cache of c entries hits exactly the reuses at distance < c).
	ReuseDistance []Quantile `json:"reuse_distance"`
	// LRUHits is, for each capacity of LRUCapacities, the hits of an LRU
	// cache of that many entries, from the reuse distances.
	LRUHits []int64 `json:"lru_hits"`
	// LRUCapacities are the entry counts of LRUHits: 1, 2, 5, 10 and 20%
	// of the objects (at least 1).
	LRUCapacities []int `json:"lru_capacities"`
}

// Quantile is one quantile of a distribution.
type Quantile struct {
	Q     float64 `json:"q"`
	Value int64   `json:"value"`
}

// StatsQuantiles are the reuse-distance quantiles Stats reports.
var StatsQuantiles = []float64{0.1, 0.5, 0.9, 0.99}

// StatsFractions are the shares of the objects at which Stats gives LRU's
// hits, the sweep of the real-trace suite.
var StatsFractions = []float64{0.01, 0.02, 0.05, 0.10, 0.20}

// ComputeStats reads r to its end. Reuse distances are counted exactly
// with a Fenwick tree over request positions that marks each object's
// latest request, so memory is one int32 per request plus a map entry
// per object: 5M requests take about 60 MB.
func ComputeStats(r Reader) (Stats, error) {
	var s Stats
	last := map[uint64]int32{}
	count := map[uint64]int32{}
	var tree []int32 // Fenwick tree over positions 1..n, grown as read
	var dists []int32
	add := func(i int, v int32) {
		for ; i < len(tree); i += i & -i {
			tree[i] += v
		}
	}
	sum := func(i int) int32 {
		var t int32
		for ; i > 0; i -= i & -i {
			t += tree[i]
		}
		return t
	}
	var q Request
	for {
		err := r.Next(&q)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, err
		}
		if s.Requests >= 1<<31-2 {
			return s, fmt.Errorf("trace stats: more than %d requests", 1<<31-2)
		}
		s.Requests++
		s.Bytes += int64(q.Size)
		s.MaxSize = max(s.MaxSize, q.Size)
		pos := int(s.Requests)
		if pos >= len(tree) {
			tree = growFenwick(tree, max(2*len(tree), 1<<16))
		}
		if p, ok := last[q.ID]; ok {
			// Distinct objects whose latest request lies after p.
			dists = append(dists, sum(pos-1)-sum(int(p)))
			add(int(p), -1)
			s.Reuses++
		} else {
			s.DistinctBytes += int64(q.Size)
		}
		add(pos, 1)
		last[q.ID] = int32(pos)
		count[q.ID]++
	}
	s.Distinct = len(last)
	for _, c := range count {
		if c == 1 {
			s.OneHitWonders++
		}
	}
	slices.Sort(dists)
	for _, qu := range StatsQuantiles {
		v := int64(-1)
		if len(dists) > 0 {
			v = int64(dists[min(int(qu*float64(len(dists))), len(dists)-1)])
		}
		s.ReuseDistance = append(s.ReuseDistance, Quantile{Q: qu, Value: v})
	}
	for _, f := range StatsFractions {
		c := max(int(f*float64(s.Distinct)+0.5), 1)
		// Reuses at distance < c hit an LRU cache of c entries.
		hits, _ := slices.BinarySearch(dists, int32(c))
		s.LRUCapacities = append(s.LRUCapacities, c)
		s.LRUHits = append(s.LRUHits, int64(hits))
	}
	return s, nil
}

// growFenwick returns a Fenwick tree of size n holding the same prefix
// sums as t over t's positions (the new positions are empty): each new
// node i covers (i - lowbit(i), i], whose old part is a prefix-sum
// difference.
func growFenwick(t []int32, n int) []int32 {
	out := make([]int32, n)
	copy(out, t)
	prefix := func(i int) int32 {
		var s int32
		for ; i > 0; i -= i & -i {
			s += t[i]
		}
		return s
	}
	old := len(t) - 1
	for i := len(t); i < n; i++ {
		lo := i - (i & -i)
		if lo < old {
			out[i] = prefix(old) - prefix(lo)
		}
	}
	return out
}

// NamedStats are the stats of one trace with its name and format.
type NamedStats struct {
	Name   string `json:"name"`
	Format Format `json:"format"`
	Stats
}

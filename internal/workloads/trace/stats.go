package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cachebench/cachebench/internal/fit"
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

// ComputeStats reads r to its end, without a memory bound or a context
// (ComputeStatsContext).
func ComputeStats(r Reader) (Stats, error) {
	return ComputeStatsContext(context.Background(), r, fit.Limits{})
}

// What ComputeStats holds: per request a Fenwick-tree node and, for a
// reuse, its distance, both int32 in slices that grow by doubling (so 4
// to 8 bytes each, and the old and new tree at once while the tree
// grows: about 20 bytes per request at the peak resident size, the
// collector's slack included); per object a map entry.
const (
	// StatsBytesPerObject is the map entry of one object: its ID, last
	// position and request count, with the map's slack.
	StatsBytesPerObject = 56
	// StatsHelp says it for command help.
	StatsHelp = "Memory: about 20 B per request at its peak (a Fenwick-tree node and a reuse\n" +
		"distance of 4 B each, in arrays that grow by doubling) plus about 56 B per\n" +
		"object; a trace that would need more than the available memory is refused\n" +
		"(exit 2) when its arrays reach the limit, before the process runs out."
)

// ComputeStatsContext reads r to its end. Reuse distances are counted
// exactly with a Fenwick tree over request positions that marks each
// object's latest request (memory: StatsHelp). It stops with ctx's error
// once ctx is cancelled, looking every checkEvery requests and before
// the final sort, and with a *fit.TooBigError when what it holds would
// grow past lim's memory (when known): a small compressed file can hold
// billions of requests.
func ComputeStatsContext(ctx context.Context, r Reader, lim fit.Limits) (Stats, error) {
	var s Stats
	type object struct{ last, count int32 }
	objects := map[uint64]object{}
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
	// fits refuses growing by extra bytes beyond the memory limit.
	fits := func(extra int64) error {
		held := fit.Add(fit.Mul(4, int64(cap(tree))), fit.Mul(4, int64(cap(dists))), fit.Mul(StatsBytesPerObject, int64(len(objects))))
		if !lim.MemoryKnown || fit.Add(held, extra) <= lim.Memory {
			return nil
		}
		return &fit.TooBigError{What: "trace stats", Resource: "memory", Estimate: fit.Add(held, extra), Limit: lim.Memory,
			LimitSource: lim.MemorySource,
			Detail: fmt.Sprintf("already at request %d of %d objects, the trace not yet read to its end; "+
				"about 20 B per request and %d B per object", s.Requests, len(objects), StatsBytesPerObject)}
	}
	var q Request
	for {
		if s.Requests%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return s, err
			}
		}
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
			n := max(2*len(tree), 1<<16)
			if err := fits(4 * int64(n)); err != nil {
				return s, err
			}
			tree = growFenwick(tree, n)
		}
		o, seen := objects[q.ID]
		if seen {
			if len(dists) == cap(dists) {
				n := max(2*cap(dists), 1<<16)
				if err := fits(4 * int64(n)); err != nil {
					return s, err
				}
				dists = slices.Grow(dists, n-len(dists))
			}
			// Distinct objects whose latest request lies after o.last.
			dists = append(dists, sum(pos-1)-sum(int(o.last)))
			add(int(o.last), -1)
			s.Reuses++
		} else {
			s.DistinctBytes += int64(q.Size)
			if len(objects)%checkEvery == 0 {
				if err := fits(fit.Mul(StatsBytesPerObject, checkEvery)); err != nil {
					return s, err
				}
			}
		}
		add(pos, 1)
		objects[q.ID] = object{last: int32(pos), count: o.count + 1}
	}
	s.Distinct = len(objects)
	for _, o := range objects {
		if o.count == 1 {
			s.OneHitWonders++
		}
	}
	if err := ctx.Err(); err != nil {
		return s, err
	}
	slices.Sort(dists)
	if err := ctx.Err(); err != nil {
		return s, err
	}
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

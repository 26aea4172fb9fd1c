package hitratio

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// naiveSIEVE is SIEVE as the paper states it, over a slice: index 0 is
// the tail (oldest), the end the head; the hand is an index.
type naiveSIEVE struct {
	cap     int
	q       []uint64
	visited map[uint64]bool
	in      map[uint64]bool
	hand    int // index into q, -1 none
}

func (s *naiveSIEVE) access(id uint64) bool {
	if s.in[id] {
		s.visited[id] = true
		return true
	}
	if len(s.q) >= s.cap {
		o := s.hand
		if o < 0 {
			o = 0
		}
		for s.visited[s.q[o]] {
			s.visited[s.q[o]] = false
			o++
			if o == len(s.q) {
				o = 0
			}
		}
		victim := s.q[o]
		s.q = append(s.q[:o], s.q[o+1:]...)
		delete(s.in, victim)
		// hand moves to the object after o towards the head, now at index o
		if o == len(s.q) {
			s.hand = -1
		} else {
			s.hand = o
		}
	}
	s.q = append(s.q, id)
	s.in[id] = true
	s.visited[id] = false
	return false
}

// The list implementation agrees request by request with a plain reading
// of the paper's algorithm over a slice (naiveSIEVE), on a random trace
// whose objects are reused once soon after their first request, and on
// Corda's vault-service trace, where SIEVE's hand settles a few entries
// behind the head and evicts every new object before its reuse (both
// implementations get only the hits of the first fill there).
func TestSIEVEMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var random []uint64
	later := map[int][]uint64{}
	for i, next := 0, uint64(0); i < 100000; i, next = i+1, next+1 {
		random = append(random, later[i]...)
		delete(later, i)
		random = append(random, next)
		if rng.IntN(2) == 0 {
			at := i + 20 + rng.IntN(25)
			later[at] = append(later[at], next)
		}
	}
	tr, _ := published.Lookup("corda/trace_vaultservice")
	f, err := tr.Source().Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dense := map[uint64]uint64{}
	var corda []uint64
	var q trace.Request
	for f.Next(&q) == nil {
		d, ok := dense[q.ID]
		if !ok {
			d = uint64(len(dense))
			dense[q.ID] = d
		}
		corda = append(corda, d)
	}
	f.Close()
	for name, ids := range map[string][]uint64{"random": random, "corda": corda} {
		objects := 0
		for _, id := range ids {
			objects = max(objects, int(id)+1)
		}
		for _, c := range []int{7, 905, 4524} {
			a := newSIEVE(c, objects)
			b := &naiveSIEVE{cap: c, visited: map[uint64]bool{}, in: map[uint64]bool{}, hand: -1}
			hits := 0
			for i, id := range ids {
				x, y := a.access(id, 0), b.access(id)
				if x != y {
					t.Fatalf("%s, %d entries: request %d (object %d): hit %v, naive %v", name, c, i, id, x, y)
				}
				if x {
					hits++
				}
			}
			if name == "corda" && c > 7 && hits > c {
				t.Errorf("corda, %d entries: %d hits; SIEVE's lock-in gives about %d", c, hits, c)
			}
		}
	}
}

package hitratio

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// replayIDs runs p over ids and returns the outcome of each request.
func replayIDs(p policy, ids []uint64) []bool {
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = p.access(id, 0)
	}
	return out
}

// wantHits replays ids through p and fails unless each request hits as
// want says.
func wantHits(t *testing.T, p policy, ids []uint64, want ...bool) {
	t.Helper()
	got := replayIDs(p, ids)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("request %d (object %d): hit %v, want %v (all: %v)", i, ids[i], got[i], want[i], got)
		}
	}
}

// SIEVE with 3 entries on A B C A D B E A C, checked by hand:
//
//	A B C   misses; list (head..tail) C B A
//	A       hit: A visited
//	D       miss: the hand starts at the tail, A is visited (cleared), B is
//	        not: B evicted, hand on C; list D C A
//	B       miss: C unvisited, evicted; hand on D; list B D A
//	E       miss: D evicted; hand on B; list E B A
//	A       hit (A kept its place at the tail)
//	C       miss: B evicted; list C E A
//
// LRU gets one hit on the same requests (the first A); SIEVE keeps A.
func TestSIEVEByHand(t *testing.T) {
	const A, B, C, D, E = 0, 1, 2, 3, 4
	ids := []uint64{A, B, C, A, D, B, E, A, C}
	s := newSIEVE(3, 5)
	wantHits(t, s, ids, false, false, false, true, false, false, false, true, false)
	for id, in := range map[int]bool{A: true, C: true, E: true, B: false, D: false} {
		if (s.state[id]&sieveIn != 0) != in {
			t.Errorf("object %d cached %v, want %v", id, !in, in)
		}
	}
	if s.held() != 3 {
		t.Errorf("held %d", s.held())
	}
}

// S3-FIFO with 10 entries (S's target 1 entry, M full at 9, G 9 keys),
// checked by hand; the comments give S and M (oldest first) after each
// step and G's live keys.
func TestS3FIFOByHand(t *testing.T) {
	var ids []uint64
	var want []bool
	step := func(id uint64, hit bool) { ids = append(ids, id); want = append(want, hit) }
	for i := uint64(1); i <= 10; i++ {
		step(i, false) // S 1..10: the cache is full
	}
	step(11, false) // S evicts 1 (never accessed) to G; S 2..11
	step(1, false)  // S evicts 2 to G; 1 is in G, so it goes to M: M 1; G 2
	step(1, true)   // M: 1 count 1
	step(3, true)   // S: 3 count 1
	step(12, false) // S's tail 3 was accessed: to M (M 1 3); 4 to G; S 5..12
	step(3, true)   // 3 count 2
	step(4, false)  // full: S evicts 5 to G; 4 from G to M: M 1 3 4; G 2 5
	step(2, false)  // S evicts 6; 2 from G to M: M 1 3 4 2; G 5 6
	step(5, false)  // S evicts 7; M 1 3 4 2 5; G 6 7; S 8..12
	for i := uint64(8); i <= 12; i++ {
		step(i, true) // S: 8..12 count 1
	}
	// 13: S's tail 8, 9, 10, 11 move to M; with 11 M holds 9 and is full:
	// M evicts, its tail 1 (count 1) and 3 (count 2) go back with one
	// less, 4 (count 0) is evicted. 12 moves to M, full again: 2 (count
	// 0) is evicted. S is empty, the cache holds 8: 13 goes to S.
	step(13, false)
	step(4, false) // evicted from M, so not in G: to S (S 13 4), no eviction
	step(2, false) // full: S evicts 13 to G; 2 to S
	step(1, true)  // still in M
	step(3, true)
	s := newS3FIFO(10, 20)
	got := replayIDs(s, ids)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("request %d (object %d): hit %v, want %v", i, ids[i], got[i], want[i])
		}
	}
	if s.small.n != 2 || s.main.n != 8 {
		t.Errorf("S holds %d, M %d; want 2 and 8", s.small.n, s.main.n)
	}
	for _, id := range []int32{6, 7, 13} {
		if s.ghost.seq[id] == 0 {
			t.Errorf("%d not in G", id)
		}
	}
}

// On random traces neither policy ever holds more than its capacity, and
// neither beats OPT.
func TestReferencesBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 30; round++ {
		objects := 2 + rng.IntN(200)
		ids := make([]uint64, 500+rng.IntN(3000))
		for i := range ids {
			ids[i] = uint64(rng.IntN(objects))
		}
		capacity := 1 + rng.IntN(objects)
		opt, err := replayOPT(normalizeIDs(t, ids), Budget{Entries: capacity}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, mk := range references {
			p := mk(capacity, objects)
			hits := int64(0)
			for i, id := range ids {
				if p.access(id, 0) {
					hits++
				}
				if p.held() > capacity {
					t.Fatalf("%s, %d entries: holds %d after request %d", name, capacity, p.held(), i)
				}
			}
			if hits > opt.Hits {
				t.Fatalf("%s, %d entries: %d hits, OPT %d", name, capacity, hits, opt.Hits)
			}
		}
	}
}

// BenchmarkReferences replays 4M zipf requests over 1M objects through
// each reference policy at 1% and 10% of the objects, from memory: the
// policies' own cost, without the file (metric req/s).
func BenchmarkReferences(b *testing.B) {
	const objects = 1_000_000
	ids, next := zipfRequests(4_000_000, objects, 1.0001)
	for _, name := range ReferenceNames() {
		for _, c := range []int{objects / 100, objects / 10} {
			b.Run(fmt.Sprintf("policy=%s/entries=%d", name, c), func(b *testing.B) {
				for b.Loop() {
					p := references[name](c, objects)
					for i, id := range ids {
						p.access(id, next[i])
					}
				}
				b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "req/s")
			})
		}
	}
}

package hitratio

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// The lab's LRU (the "lru" row of hitratio) gets exactly the hits, byte
// hits and final entry count of the hashicorp/golang-lru adapter replayed
// through the get-or-set loop, at every size of every trace below: the
// vendored traces of at most 200k requests (sized and unsized, loops,
// scans, one-hit wonders) and every synthetic kind. LRU is deterministic,
// so any difference would be a bug in one of the two.
func TestLRUReferenceMatchesAdapter(t *testing.T) {
	type input struct {
		name string
		src  trace.Source
	}
	var inputs []input
	for _, tr := range published.List() {
		if name := tr.Name(); name == "corda/trace_vaultservice" || name == "adapt_size/request" || name == "cache2k/web07" ||
			strings.HasPrefix(name, "lirs/") && name != "lirs/loop" {
			inputs = append(inputs, input{tr.Name(), tr.Source()})
		}
	}
	if len(inputs) < 5 {
		t.Fatalf("only %d vendored traces found", len(inputs))
	}
	for i, kind := range trace.KindNames() {
		c := trace.GenConfig{Kind: kind, Requests: 60_000, Keys: 3_000, Alpha: 0.8, Seed: uint64(i + 1), SizeMin: 16, SizeMax: 4096}
		inputs = append(inputs, input{"gen " + kind, trace.Source{Gen: &c}})
	}
	for _, in := range inputs {
		n := normalizeSource(t, in.src)
		caps := []Capacity{{Entries: 1}, {Entries: 2}, {Fraction: 0.01}, {Fraction: 0.05}, {Fraction: 0.2}, {Fraction: 1}}
		for _, cp := range caps {
			b := cp.Resolve(n.Summary)
			ad, err := replayAdapter(n, "lru", b, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := replayPolicy(n, "lru", newLRU(b.Entries, n.Distinct), b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ad.Hits != ref.Hits || ad.HitBytes != ref.HitBytes || ad.Held != ref.Held || ad.Requests != ref.Requests {
				t.Errorf("%s at %s (%d entries): adapter %d hits, %d hit bytes, holds %d; reference %d, %d, %d",
					in.name, cp, b.Entries, ad.Hits, ad.HitBytes, ad.Held, ref.Hits, ref.HitBytes, ref.Held)
			}
		}
	}
}

// normalizeSource normalizes one trace for replay; the copy is freed when
// the test ends.
func normalizeSource(t testing.TB, src trace.Source) *trace.Normalized {
	t.Helper()
	f, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := trace.Normalize(f, t.TempDir(), src.DisplayName())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// LRU with 3 entries on A B C A D B E A C, checked by hand (list from the
// most recent):
//
//	A B C  misses; C B A
//	A      hit; A C B
//	D      miss, evicts B; D A C
//	B      miss, evicts C; B D A
//	E      miss, evicts A; E B D
//	A      miss, evicts D; A E B
//	C      miss, evicts B; C A E
func TestLRUByHand(t *testing.T) {
	const A, B, C, D, E = 0, 1, 2, 3, 4
	ids := []uint64{A, B, C, A, D, B, E, A, C}
	l := newLRU(3, 5)
	wantHits(t, l, ids, false, false, false, true, false, false, false, false, false)
	var order []int32
	for o := l.head; o >= 0; o = l.nodes[o].next {
		order = append(order, o)
	}
	if fmt.Sprint(order) != fmt.Sprint([]int32{C, A, E}) || l.tail != E || l.held() != 3 {
		t.Errorf("list %v, tail %d, held %d; want [2 0 4], 4, 3", order, l.tail, l.held())
	}
	for _, o := range []int{B, D} {
		if l.nodes[o].prev != lruOut {
			t.Errorf("object %d still linked", o)
		}
	}
}

// FIFO with 3 entries on A B C A D A B E A, by hand: a hit does not save
// A from leaving first.
//
//	A B C  misses; queue (oldest first) A B C
//	A      hit
//	D      miss, evicts A; B C D
//	A      miss, evicts B; C D A
//	B      miss, evicts C; D A B
//	E      miss, evicts D; A B E
//	A      hit
func TestFIFOByHand(t *testing.T) {
	const A, B, C, D, E = 0, 1, 2, 3, 4
	ids := []uint64{A, B, C, A, D, A, B, E, A}
	f := newFIFO(3, 5)
	wantHits(t, f, ids, false, false, false, true, false, false, false, false, true)
	if f.held() != 3 || f.in[C] || f.in[D] || !f.in[A] || !f.in[B] || !f.in[E] {
		t.Errorf("held %d, cached %v", f.held(), f.in)
	}
}

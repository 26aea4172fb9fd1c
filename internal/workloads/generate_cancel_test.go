package workloads

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestShuffleIsRandShuffle: the cancellable shuffle draws the same
// permutation as math/rand/v2's, so workloads stay what their seed made.
func TestShuffleIsRandShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1000, ctxEvery + 7} {
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i], b[i] = i, i
		}
		rand.New(rand.NewPCG(9, 2)).Shuffle(n, func(i, j int) { a[i], a[j] = a[j], a[i] })
		if err := shuffle(context.Background(), rand.New(rand.NewPCG(9, 2)), n, func(i, j int) { b[i], b[j] = b[j], b[i] }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("n=%d: permutations differ", n)
		}
	}
}

// TestGenerateCancelled: generation of a large workload stops within
// moments of a Ctrl-C.
func TestGenerateCancelled(t *testing.T) {
	s, err := DefaultSpec("get-or-set/zipf")
	if err != nil {
		t.Fatal(err)
	}
	s.Keys, s.Ops, s.Seed, s.ValueMin, s.ValueMax = 20_000_000, 100_000_000, 1, 16, 64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = GenerateContext(ctx, s)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("stopped after %v", el)
	}
}

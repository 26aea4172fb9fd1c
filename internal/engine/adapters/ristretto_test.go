package adapters

import (
	"fmt"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// TestRistrettoEntriesHeld: the "entries" ristretto's adapter reports after
// a drain is the number of keys a Get finds, also once admission rejects
// and evictions have run and keys were set twice; after a Delete it is no
// longer reported.
func TestRistrettoEntriesHeld(t *testing.T) {
	f, err := engine.Lookup("ristretto")
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.New(engine.Options{Entries: 500, MemoryBytes: 1 << 20, MaxValueSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	key := func(i int) []byte { return fmt.Appendf(nil, "key_%d", i) }
	// 3,000 keys into room for 500, the first 1,000 set twice (updates,
	// and second Sets of keys not yet applied), a few read often enough
	// to be admitted over others.
	for round := range 2 {
		for i := range 3000 {
			if round == 1 && i >= 1000 {
				break
			}
			if err := a.Set(key(i), []byte("v")); err != nil {
				t.Fatal(err)
			}
			if i%7 == 0 {
				a.Get(nil, key(i%50))
			}
		}
	}
	a.(engine.Drainer).Drain()
	found := 0
	for i := range 3000 {
		if _, ok, _ := a.Get(nil, key(i)); ok {
			found++
		}
	}
	got, ok := a.(engine.Statser).Stats()["entries"]
	if !ok || int(got) != found || found == 0 || found > 500 {
		t.Fatalf("entries %d (reported: %v), Get finds %d keys, budget 500", got, ok, found)
	}
	if _, err := a.(engine.Deleter).Delete(key(1)); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(engine.Statser).Stats()["entries"]; ok {
		t.Fatal("entries still reported after a Delete")
	}
}

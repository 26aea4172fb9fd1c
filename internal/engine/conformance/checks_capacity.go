package conformance

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// Checks of what a cache holds under pressure: eviction, the budget,
// size limits, concurrent writers and a mixed load, and batched reads.

// eviction overfills an in-memory adapter fivefold (entry budget 1,000;
// byte budget 1 MiB), checks that whatever it still holds is right, and
// then checks the budget from above (see budget).
func (s suite) eviction(t *testing.T) {
	o := s.options(t)
	o.Entries, o.MemoryBytes = overfillEntries, overfillBytes
	a := s.newAdapter(t, o)
	defer closeAdapter(t, a)
	const n = 5 * overfillEntries
	for i := 0; i < n; i++ {
		if err := a.Set(testKey(i), testValue(i)); err != nil {
			t.Fatalf("Set(%s) into a full cache: %v", show(testKey(i)), err)
		}
	}
	settle(t, a)
	hits := 0
	for i := 0; i < n; i++ {
		out, ok := get(t, a, nil, testKey(i))
		if !ok {
			continue
		}
		hits++
		if !bytes.Equal(out, testValue(i)) {
			wrongValue(t, "after eviction", testKey(i), testValue(i), out)
		}
	}
	if s.o.Exact && hits != n {
		t.Errorf("an exact adapter found %d of %d", hits, n)
	}
	if l, ok := a.(engine.Lener); ok && !s.o.Exact {
		t.Logf("after overfill: %d found, Len() = %d", hits, l.Len())
	} else {
		t.Logf("after overfill: %d of %d found", hits, n)
	}
	if hits == 0 {
		t.Errorf("overfilled cache holds nothing")
	}
	t.Run("budget", s.budget)
}

// budget checks that a bounded cache holds no more than its budget, so
// that it is not compared with others while holding more than they may:
// given 4,000 entries or 32 MiB (whichever it bounds by) and sent 12,000
// entries of 4 KiB (three times the entries, 1.5 times the bytes), it
// must afterwards find no more than the entry budget or no more bytes
// (keys and values) than the byte budget, each with 5% of slack. The
// byte budget is 32 MiB because some caches cannot be made smaller
// (fastcache's minimum is 32 MiB). Exact adapters (unbounded maps, file
// stores) are exempt.
func (s suite) budget(t *testing.T) {
	if s.o.Exact {
		t.Skip("exact adapter: holds every entry by design")
	}
	const entries, memory, n, size = 4_000, 32 << 20, 12_000, 4 << 10
	o := s.options(t)
	o.Entries, o.MemoryBytes, o.MaxValueSize = entries, memory, size
	a := s.newAdapter(t, o)
	defer closeAdapter(t, a)
	val := make([]byte, size)
	for i := 0; i < n; i++ {
		v := fmt.Appendf(val[:0], "%d:", i)
		if err := a.Set(testKey(i), v[:size]); err != nil {
			t.Fatalf("Set(%s, %d bytes): %v", show(testKey(i)), size, err)
		}
	}
	settle(t, a)
	found, held := 0, 0
	buf := make([]byte, 0, size)
	for i := 0; i < n; i++ {
		out, ok := get(t, a, buf[:0], testKey(i))
		if !ok {
			continue
		}
		found++
		held += len(testKey(i)) + len(out)
		if prefix := fmt.Appendf(nil, "%d:", i); len(out) != size || !bytes.HasPrefix(out, prefix) {
			t.Errorf("WRONG VALUE for key %s: want %d bytes starting %q, got %d bytes starting %s",
				show(testKey(i)), size, prefix, len(out), show(out[:min(len(out), 16)]))
		}
	}
	t.Logf("sent %d entries of %d bytes with a budget of %d entries or %d bytes: %d found (%d bytes)",
		n, size, entries, memory, found, held)
	if float64(found) > entries*budgetSlack && float64(held) > memory*budgetSlack {
		t.Errorf("holds %d entries (%d bytes of keys and values) with a budget of %d entries or %d bytes: it keeps more than either budget allows",
			found, held, entries, memory)
	}
}

// limits sets entries at the edges libraries handle badly (an empty key,
// a 70 KiB key, values of 70 KiB and 1 MiB) into an adapter whose budget
// could hold them. Each must either be refused with an error or be read
// back intact: a nil error followed by a miss is a silent drop.
func (s suite) limits(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	cases := []struct {
		name string
		k, v []byte
	}{
		{"empty key", []byte{}, []byte("value of the empty key")},
		{"70 KiB key", bytes.Repeat([]byte("k"), 70<<10), []byte("v")},
		{"70 KiB value", []byte("big-70k"), bytes.Repeat([]byte("7"), 70<<10)},
		{"1 MiB value", []byte("big-1m"), bytes.Repeat([]byte("1"), 1<<20)},
	}
	accepted := make([]bool, len(cases))
	for i, c := range cases {
		if err := a.Set(c.k, c.v); err != nil {
			t.Logf("%s: refused: %v", c.name, err)
			continue
		}
		accepted[i] = true
	}
	settle(t, a)
	for i, c := range cases {
		if !accepted[i] {
			continue
		}
		out, ok := get(t, a, nil, c.k)
		switch {
		case !ok:
			t.Errorf("%s: Set(%s) returned nil but Get does not find it (silent drop)", c.name, show(c.k))
		case !bytes.Equal(out, c.v):
			wrongValue(t, c.name, c.k, c.v, out)
		default:
			t.Logf("%s: stored", c.name)
		}
	}
}

// concurrentSet builds the adapter from four goroutines writing disjoint
// keys (Set must be safe for concurrent use, also while a write-once
// store is being built) and checks the result.
func (s suite) concurrentSet(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	const writers, per = 4, 500
	var wg sync.WaitGroup
	var errs sync.Map
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w * per; i < (w+1)*per; i++ {
				if err := a.Set(testKey(i), testValue(i)); err != nil {
					errs.Store(w, fmt.Errorf("Set(%s): %w", show(testKey(i)), err))
					return
				}
			}
		}(w)
	}
	wg.Wait()
	failed := false
	errs.Range(func(w, err any) bool {
		t.Errorf("concurrent Set (writer %v): %v", w, err)
		failed = true
		return true
	})
	if failed {
		return
	}
	settle(t, a)
	hits := 0
	for i := 0; i < writers*per; i++ {
		out, ok := get(t, a, nil, testKey(i))
		if !ok {
			continue
		}
		hits++
		if !bytes.Equal(out, testValue(i)) {
			wrongValue(t, "after concurrent Sets", testKey(i), testValue(i), out)
		}
	}
	s.checkHits(t, hits, writers*per)
}

// mixed runs writers that keep replacing values (each key alternates
// between two legitimate values) against readers, for mutable adapters:
// a reader may see either value or, for a bounded cache, a miss, but never
// a torn or foreign value.
func (s suite) mixed(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	if _, isFreezer := a.(engine.Freezer); isFreezer {
		t.Skip("write-once store: no Set after Freeze")
	}
	const keys, rounds = 500, 4
	alt := func(i int) []byte { return append(testValue(i), "-alt"...) }
	for i := 0; i < keys; i++ {
		mustSet(t, a, testKey(i), testValue(i))
	}
	settle(t, a)
	var wg sync.WaitGroup
	var errs, wrong sync.Map
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				for i := w; i < keys; i += 2 {
					v := testValue(i)
					if r%2 == 0 {
						v = alt(i)
					}
					if err := a.Set(testKey(i), v); err != nil {
						errs.Store(fmt.Sprintf("writer %d", w), fmt.Errorf("Set(%s): %w", show(testKey(i)), err))
						return
					}
				}
			}
		}(w)
	}
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var dst []byte
			for n := 0; n < rounds*keys; n++ {
				i := (n*7 + r*131) % keys
				out, ok, err := a.Get(dst[:0], testKey(i))
				if err != nil {
					errs.Store(fmt.Sprintf("reader %d", r), fmt.Errorf("Get(%s): %w", show(testKey(i)), err))
					return
				}
				dst = out
				if ok && !bytes.Equal(out, testValue(i)) && !bytes.Equal(out, alt(i)) {
					wrong.LoadOrStore(r, fmt.Sprintf("key %s: want %s or %s, got %s",
						show(testKey(i)), show(testValue(i)), show(alt(i)), show(out)))
				}
			}
		}(r)
	}
	wg.Wait()
	errs.Range(func(who, err any) bool {
		t.Errorf("mixed Get/Set (%v): %v", who, err)
		return true
	})
	wrong.Range(func(r, msg any) bool {
		t.Errorf("reader %v got a WRONG VALUE while keys were being replaced (its first): %v", r, msg)
		return true
	})
	// After the writers are done each key holds its last value: rounds is
	// even, so the last round (odd) wrote testValue.
	settle(t, a)
	for i := 0; i < keys; i++ {
		checkGet(t, "after the writers", a, nil, testKey(i), testValue(i), s.o.Exact)
	}
}

// batch checks BatchGetter: GetBatch calls fn once per key, in order,
// with what Get returns for that key (values, misses, a key repeated).
func (s suite) batch(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	bg, ok := a.(engine.BatchGetter)
	if !ok {
		t.Skip("not a BatchGetter")
	}
	const n = 300
	for i := 0; i < n; i++ {
		mustSet(t, a, testKey(i), testValue(i))
	}
	settle(t, a)
	var keys [][]byte
	for i := 0; i < n; i++ {
		keys = append(keys, testKey(i))
		if i%10 == 0 {
			keys = append(keys, fmt.Appendf(nil, "missing-%d", i), testKey(i/2))
		}
	}
	type answer struct {
		val   []byte
		found bool
	}
	want := make([]answer, len(keys))
	for i, k := range keys {
		v, found := get(t, a, nil, k)
		want[i] = answer{v, found}
	}
	next := 0
	err := bg.GetBatch(keys, func(i int, val []byte, found bool) {
		if i != next {
			t.Errorf("GetBatch called fn for index %d, want %d (in order, once each)", i, next)
		}
		next = i + 1
		if i < 0 || i >= len(keys) {
			return
		}
		switch w := want[i]; {
		case found != w.found:
			t.Errorf("GetBatch key %s: found=%v, Get found=%v", show(keys[i]), found, w.found)
		case found && !bytes.Equal(val, w.val):
			t.Errorf("GetBatch key %s: WRONG VALUE (Get's value expected): %s", show(keys[i]), diff(w.val, val))
		}
	})
	if err != nil {
		t.Fatalf("GetBatch: %v", err)
	}
	if next != len(keys) {
		t.Errorf("GetBatch called fn for %d of %d keys", next, len(keys))
	}
}

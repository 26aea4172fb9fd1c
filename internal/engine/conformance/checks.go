package conformance

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// basics checks, on a nearly empty adapter that every kind must hold
// exactly: append to a non-empty dst, spare capacity, an empty value, a
// missing key, Set not keeping the caller's buffers, and the Config.
func (s suite) basics(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	k1, v1 := []byte("alpha"), []byte("first value")
	kEmpty := []byte("empty-value")
	kNil := []byte("nil-value")
	mustSet(t, a, k1, v1)
	mustSet(t, a, kEmpty, []byte{})
	mustSet(t, a, kNil, nil)
	settle(t, a)

	checkGet(t, "Get with a non-empty dst", a, []byte("prefix:"), k1, v1, true)
	// dst with spare capacity: the value must land after len(dst), and
	// bytes beyond len(dst) must not be mistaken for content.
	dst := make([]byte, 3, 64)
	copy(dst[:cap(dst)], bytes.Repeat([]byte{'#'}, cap(dst)))
	out, ok := get(t, a, dst, k1)
	if want := append([]byte("###"), v1...); !ok || !bytes.Equal(out, want) {
		t.Errorf("Get with a spare-capacity dst: key %s found=%v: %s", show(k1), ok, diff(want, out))
	}
	for _, k := range [][]byte{kEmpty, kNil} {
		checkGet(t, "Get of an empty value", a, []byte("prefix:"), k, []byte{}, true)
	}
	checkGet(t, "Get of a missing key", a, []byte("prefix:"), []byte("no-such-key"), nil, false)

	c, ok := a.(engine.Configurer)
	if !ok {
		t.Fatalf("%s does not implement Configurer: Config() must state how the adapter uses its budget", s.f.Name)
	}
	cfg := c.Config()
	if len(cfg) == 0 {
		t.Errorf("Config() is empty")
	}
	for k, v := range cfg {
		if k == "" || v == "" {
			t.Errorf("Config() has an empty key or value: %q=%q", k, v)
		}
	}
}

// binary checks keys and values made of arbitrary bytes: NUL and 0xff,
// every byte value, invalid UTF-8, keys that are prefixes of each other.
// Values are arbitrary bytes everywhere; a key may be refused with an
// error, never silently dropped or mixed up with another.
func (s suite) binary(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	rev := bytes.Clone(all)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	pairs := []struct{ k, v []byte }{
		{[]byte{0}, []byte("one NUL")},
		{[]byte{0, 0}, []byte("two NULs")},
		{[]byte{0xff}, make([]byte, 100)}, // a value of 100 zero bytes
		{[]byte("a"), []byte{0, 1, 2, 0}},
		{[]byte("a\x00"), []byte("a and NUL")},
		{[]byte("a\x00b"), []byte{0xff, 0xfe, 0}},
		{[]byte("\xc3\x28 invalid utf-8"), []byte("\xe2\x28\xa1")},
		{all, rev},
		{rev, all},
	}
	// A store whose protocol cannot carry such a key (memcached's text
	// protocol refuses control characters) may refuse it with an error,
	// as for the limits; what it accepts must come back intact.
	accepted := make([]bool, len(pairs))
	for i, p := range pairs {
		if err := a.Set(p.k, p.v); err != nil {
			t.Logf("Set(%s) refused: %v", show(p.k), err)
			continue
		}
		accepted[i] = true
	}
	settle(t, a)
	for i, p := range pairs {
		if accepted[i] {
			checkGet(t, "binary round trip", a, nil, p.k, p.v, true)
		}
	}
	checkGet(t, "binary key never set", a, nil, []byte{0, 0, 0}, nil, false)
}

// dst checks that the adapter keeps none of the caller's buffers: Get
// must not keep dst (the caller reuses it at once) and Set must not keep
// key or value (the caller reuses them too, also before a Freeze).
func (s suite) dst(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	kb, vb := []byte("reused-key"), []byte("reused-value")
	mustSet(t, a, kb, vb)
	copy(kb, "XXXXXXXXXX")
	copy(vb, "YYYYYYYYYYYY")
	k2, v2 := []byte("second-key"), bytes.Repeat([]byte("2"), 100)
	mustSet(t, a, k2, v2)
	settle(t, a)
	if _, ok := get(t, a, nil, kb); ok && string(kb) != "reused-key" {
		t.Errorf("after the caller reused its key buffer, the changed key %s is found", show(kb))
	}
	checkGet(t, "Get after the caller reused the buffers given to Set", a, nil, []byte("reused-key"), []byte("reused-value"), true)

	// Get into a buffer with room, then scribble over the whole buffer,
	// as a caller reusing it does: the adapter must still hold its value.
	buf := make([]byte, 0, 4096)
	for round := 0; round < 3; round++ {
		out, ok := get(t, a, buf[:0], k2)
		if !ok || !bytes.Equal(out, v2) {
			t.Fatalf("round %d: Get(%s) into a reused buffer: found=%v, %s", round, show(k2), ok, diff(v2, out))
		}
		full := out[:cap(out)]
		for i := range full {
			full[i] = '#'
		}
		buf = out
	}
	checkGet(t, "Get after the caller scribbled over the dst of earlier Gets", a, nil, k2, v2, true)
	checkGet(t, "Get after the caller scribbled over the dst of earlier Gets", a, nil, []byte("reused-key"), []byte("reused-value"), true)
}

// bulk sets half the entry budget, then checks every value from one and
// from eight goroutines, Len and Stats.
func (s suite) bulk(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	keys := make([][]byte, bulkKeys)
	vals := make([][]byte, bulkKeys)
	for i := range keys {
		keys[i], vals[i] = testKey(i), testValue(i)
		mustSet(t, a, keys[i], vals[i])
	}
	settle(t, a)

	hits := 0
	var buf []byte
	for i, k := range keys {
		out, ok := get(t, a, buf[:0], k)
		buf = out
		if !ok {
			continue
		}
		hits++
		if !bytes.Equal(out, vals[i]) {
			wrongValue(t, "bulk", k, vals[i], out)
		}
	}
	s.checkHits(t, hits, len(keys))

	if l, ok := a.(engine.Lener); ok {
		n := l.Len()
		if s.o.Exact && n != len(keys) {
			t.Errorf("Len() = %d, want %d", n, len(keys))
		}
		if !s.o.Exact && (n < hits || n > len(keys)) {
			t.Errorf("Len() = %d, want between the %d keys found and the %d set", n, hits, len(keys))
		}
	}

	// Concurrent readers, each in its own order; run under -race.
	var found atomic.Int64
	var errs, wrong sync.Map
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var dst []byte
			for j := range keys {
				i := (j*(2*r+1) + r*977) % len(keys)
				out, ok, err := a.Get(dst[:0], keys[i])
				if err != nil {
					errs.Store(r, fmt.Errorf("Get(%s): %w", show(keys[i]), err))
					return
				}
				dst = out
				if ok {
					found.Add(1)
					if !bytes.Equal(out, vals[i]) {
						wrong.LoadOrStore(r, fmt.Sprintf("key %s: %s", show(keys[i]), diff(vals[i], out)))
					}
				}
			}
		}(r)
	}
	wg.Wait()
	errs.Range(func(r, err any) bool {
		t.Errorf("concurrent Get (reader %v): %v", r, err)
		return true
	})
	wrong.Range(func(r, msg any) bool {
		t.Errorf("concurrent Get (reader %v): WRONG VALUE (first of the reader's): %v", r, msg)
		return true
	})
	// Each reader makes len(keys) lookups in its own order (strides that
	// share a factor with len(keys) revisit some keys, which is fine): an
	// exact store must find every one of them.
	if s.o.Exact && found.Load() != int64(readers*len(keys)) {
		t.Errorf("concurrent Gets found %d of %d lookups", found.Load(), readers*len(keys))
	}

	if st, ok := a.(engine.Statser); ok {
		stats := st.Stats()
		if len(stats) == 0 {
			t.Errorf("Stats() is empty")
		}
		for k := range stats {
			if k == "" || k != strings.ToLower(k) || strings.ContainsAny(k, " -") {
				t.Errorf("Stats key %q is not snake_case", k)
			}
		}
		t.Logf("stats: %v", stats)
	}

	// Allocations of a hit with room in dst: logged, not asserted (some
	// libraries copy by design; the benchmark reports allocs/op).
	dst := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(200, func() {
		_, _, _ = a.Get(dst[:0], keys[7])
	})
	t.Logf("allocs per Get hit: %.1f", allocs)
}

func (s suite) checkHits(t *testing.T, hits, n int) {
	t.Helper()
	if s.o.Exact {
		if hits != n {
			t.Errorf("found %d of %d keys; %s must hold every entry", hits, n, s.f.Name)
		}
		return
	}
	if frac := float64(hits) / float64(n); frac < MinHitFraction {
		t.Errorf("found %d of %d keys (%.1f%%) with a budget of %d entries / %d bytes; want at least %.0f%%",
			hits, n, 100*frac, BudgetEntries, BudgetBytes, 100*MinHitFraction)
	} else if hits < n {
		t.Logf("bounded cache found %d of %d keys", hits, n)
	}
}

// overwrite checks that a second Set of a key replaces the value
// (mutable adapters) or follows the documented duplicates rule
// (write-once stores declare it through engine.DuplicateKeyer).
func (s suite) overwrite(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	k := []byte("overwritten")
	v1, v2 := []byte("value one"), []byte("value two, longer than one")

	if _, isFreezer := a.(engine.Freezer); isFreezer {
		var rule engine.DuplicatePolicy
		if d, ok := a.(engine.DuplicateKeyer); ok {
			rule = d.DuplicatePolicy()
		}
		var want []byte
		switch rule {
		case engine.FirstWins:
			want = v1
		case engine.LastWins:
			want = v2
		default:
			t.Fatalf("a write-once store must declare its engine.DuplicatePolicy (got %v)", rule)
		}
		mustSet(t, a, k, v1)
		mustSet(t, a, []byte("other"), []byte("x"))
		mustSet(t, a, k, v2)
		settle(t, a)
		checkGet(t, fmt.Sprintf("duplicate key (%v)", rule), a, nil, k, want, true)
		return
	}

	mustSet(t, a, k, v1)
	settle(t, a)
	mustSet(t, a, k, v2)
	settle(t, a)
	checkGet(t, "after an overwrite", a, nil, k, v2, true)
	mustSet(t, a, k, v1)
	settle(t, a)
	checkGet(t, "after an overwrite with a shorter value", a, nil, k, v1, true)

	// Two Sets of a new key with no Drain between them: the last value or
	// (for a lossy cache) nothing, never the first.
	k2 := []byte("back-to-back")
	mustSet(t, a, k2, v1)
	mustSet(t, a, k2, v2)
	settle(t, a)
	out, ok := get(t, a, nil, k2)
	switch {
	case !ok && s.o.Exact:
		t.Errorf("back-to-back Sets: key %s lost", show(k2))
	case ok && bytes.Equal(out, v1):
		if why := s.o.StaleBackToBack; why != "" {
			t.Logf("documented quirk: back-to-back Sets keep the first value (%s)", why)
		} else {
			t.Errorf("back-to-back Sets of key %s: Get returned the FIRST value: %s", show(k2), diff(v2, out))
		}
	case ok && !bytes.Equal(out, v2):
		wrongValue(t, "back-to-back Sets", k2, v2, out)
	}
}

// delete checks Deleter: the key goes, a second Delete and a Delete of a
// missing key report false, other keys stay.
func (s suite) delete(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	d, ok := a.(engine.Deleter)
	if !ok {
		t.Skip("not a Deleter")
	}
	k, keep := []byte("to-delete"), []byte("to-keep")
	mustSet(t, a, k, []byte("v"))
	mustSet(t, a, keep, []byte("kept"))
	settle(t, a)
	if present, err := d.Delete(k); err != nil || !present {
		t.Errorf("Delete(%s) of a present key = %v, %v; want true, nil", show(k), present, err)
	}
	drain(a)
	checkGet(t, "Get after Delete", a, nil, k, nil, false)
	if present, err := d.Delete(k); err != nil || present {
		t.Errorf("second Delete(%s) = %v, %v; want false, nil", show(k), present, err)
	}
	if present, err := d.Delete([]byte("never-set")); err != nil || present {
		t.Errorf("Delete of a missing key = %v, %v; want false, nil", present, err)
	}
	checkGet(t, "Delete of another key", a, nil, keep, []byte("kept"), true)
}

// lifecycle checks the Freezer and FileBacked contracts: no Get before
// Freeze, no Set after, Paths that exist, Reopen that still finds the data.
func (s suite) lifecycle(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	fz, isFreezer := a.(engine.Freezer)
	fb, isFile := a.(engine.FileBacked)
	if s.f.Kind == engine.FileStore && !isFile {
		t.Errorf("a %s adapter should implement FileBacked", s.f.Kind)
	}
	if !isFreezer && !isFile {
		t.Skip("neither Freezer nor FileBacked")
	}
	for i := 0; i < 100; i++ {
		mustSet(t, a, testKey(i), testValue(i))
	}
	if isFreezer {
		if _, _, err := a.Get(nil, testKey(1)); err == nil {
			t.Errorf("Get before Freeze: no error")
		} else {
			t.Logf("Get before Freeze: %v", err)
		}
		if isFile {
			if err := fb.Reopen(); err == nil {
				t.Errorf("Reopen before Freeze: no error")
			}
		}
		if err := fz.Freeze(); err != nil {
			t.Fatalf("Freeze: %v", err)
		}
		if err := a.Set([]byte("late"), []byte("x")); err == nil {
			t.Errorf("Set after Freeze: no error")
		}
		// A second Freeze is outside the contract; whatever it returns,
		// the store must keep serving what it holds.
		if err := fz.Freeze(); err != nil {
			t.Logf("second Freeze: %v", err)
		}
		checkGet(t, "after Freeze", a, nil, testKey(3), testValue(3), true)
	}
	if !isFile {
		return
	}
	paths := fb.Paths()
	if len(paths) == 0 {
		t.Errorf("Paths() is empty")
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil {
			t.Errorf("Paths(): %v", err)
		} else if !st.Mode().IsRegular() {
			t.Errorf("Paths(): %s is not a regular file", p)
		}
	}
	if err := fb.Reopen(); err != nil {
		t.Fatalf("Reopen: %v", err)
	}
	for i := 0; i < 100; i++ {
		if !checkGet(t, "after Reopen", a, nil, testKey(i), testValue(i), true) {
			return
		}
	}
}

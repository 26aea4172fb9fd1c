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

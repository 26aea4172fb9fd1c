package adapters_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/engine/netserver/servertest"
)

// The conformance suite runs every check below against every registered
// adapter (engine.All), so an adapter added to the package is covered
// without touching this file.

const (
	budgetEntries = 10_000
	budgetBytes   = 64 << 20
	maxValueSize  = 256
	// bulkKeys is half the entry budget: a bounded cache must then hold
	// nearly all of them.
	bulkKeys = budgetEntries / 2
	// minHitFraction is what a bounded cache must find with a budget of
	// twice the keys it was given.
	minHitFraction = 0.90
	readers        = 8
)

// exactInMemory lists the in-memory adapters that never drop an entry;
// file stores are always exact. Any other in-memory adapter is treated as
// a bounded cache that may legitimately lose a few entries.
var exactInMemory = map[string]bool{"map": true, "syncmap": true}

// staleAfterBackToBackSet lists adapters known to keep the first of two
// Sets of a new key issued before their write buffer is applied; for them
// that case is logged as a documented quirk instead of failing.
var staleAfterBackToBackSet = map[string]string{
	"ristretto": "the second Set of a not-yet-applied new key is rejected by the policy, which already holds the key",
}

func testOptions(t *testing.T) engine.Options {
	return engine.Options{
		Entries:      budgetEntries,
		MemoryBytes:  budgetBytes,
		MaxValueSize: maxValueSize,
		Dir:          t.TempDir(),
	}
}

func testKey(i int) []byte { return fmt.Appendf(nil, "key-%07d", i) }

// testValue carries its key's index, so a value returned for the wrong key
// is detected, and has a length from 0 to 200 bytes.
func testValue(i int) []byte {
	v := fmt.Appendf(nil, "v%d:", i)
	for j := 0; j < i%190; j++ {
		v = append(v, byte('a'+(i+j)%26))
	}
	return v
}

func isExact(f engine.Factory) bool {
	return f.Kind == engine.FileStore || exactInMemory[f.Name]
}

func newAdapter(t *testing.T, f engine.Factory, o engine.Options) engine.Adapter {
	t.Helper()
	a, err := f.New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	if a.Name() != f.Name {
		t.Errorf("Name() = %q, registered as %q", a.Name(), f.Name)
	}
	return a
}

// settle ends the write phase: Freeze for write-once stores, Drain for
// asynchronous caches.
func settle(t *testing.T, a engine.Adapter) {
	t.Helper()
	if fz, ok := a.(engine.Freezer); ok {
		if err := fz.Freeze(); err != nil {
			t.Fatalf("Freeze: %v", err)
		}
	}
	if d, ok := a.(engine.Drainer); ok {
		d.Drain()
	}
}

func closeAdapter(t *testing.T, a engine.Adapter) {
	t.Helper()
	if err := a.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func mustSet(t *testing.T, a engine.Adapter, k, v []byte) {
	t.Helper()
	if err := a.Set(k, v); err != nil {
		t.Fatalf("Set(%q, %d bytes): %v", k, len(v), err)
	}
}

func get(t *testing.T, a engine.Adapter, dst, k []byte) ([]byte, bool) {
	t.Helper()
	out, ok, err := a.Get(dst, k)
	if err != nil {
		t.Fatalf("Get(%q): %v", k, err)
	}
	return out, ok
}

func TestConformance(t *testing.T) {
	all := engine.All()
	if len(all) == 0 {
		t.Fatal("no adapter registered")
	}
	for _, f := range all {
		if f.Kind == engine.Probe {
			continue // stores nothing by design; null_test.go covers it
		}
		t.Run(f.Name, func(t *testing.T) {
			if f.Kind == engine.Network {
				servertest.Require(t, "memcached", "redis-server")
			}
			t.Run("basics", func(t *testing.T) { testBasics(t, f) })
			t.Run("bulk", func(t *testing.T) { testBulk(t, f) })
			t.Run("overwrite", func(t *testing.T) { testOverwrite(t, f) })
			t.Run("delete", func(t *testing.T) { testDelete(t, f) })
			t.Run("lifecycle", func(t *testing.T) { testLifecycle(t, f) })
			t.Run("limits", func(t *testing.T) { testLimits(t, f) })
			t.Run("concurrent-set", func(t *testing.T) { testConcurrentSet(t, f) })
			t.Run("mixed", func(t *testing.T) { testMixed(t, f) })
			if f.Kind == engine.InMemory {
				t.Run("eviction", func(t *testing.T) { testEviction(t, f) })
			}
		})
	}
}

// testBasics checks, on a nearly empty adapter that every kind must hold
// exactly: append to a non-empty dst, spare capacity, an empty value, a
// missing key, and the Config.
func testBasics(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
	defer closeAdapter(t, a)
	k1, v1 := []byte("alpha"), []byte("first value")
	kEmpty := []byte("empty-value")
	kNil := []byte("nil-value")
	mustSet(t, a, k1, v1)
	mustSet(t, a, kEmpty, []byte{})
	mustSet(t, a, kNil, nil)
	settle(t, a)

	prefix := []byte("prefix:")
	out, ok := get(t, a, bytes.Clone(prefix), k1)
	if !ok || !bytes.Equal(out, append(bytes.Clone(prefix), v1...)) {
		t.Errorf("Get with prefix dst = %q, %v; want %q, true", out, ok, append(bytes.Clone(prefix), v1...))
	}
	// dst with spare capacity: the value must land after len(dst), and
	// bytes beyond len(dst) must not be mistaken for content.
	dst := make([]byte, 3, 64)
	copy(dst[:cap(dst)], bytes.Repeat([]byte{'#'}, cap(dst)))
	out, ok = get(t, a, dst, k1)
	if !ok || !bytes.Equal(out, append([]byte("###"), v1...)) {
		t.Errorf("Get with spare-capacity dst = %q, %v; want %q", out, ok, append([]byte("###"), v1...))
	}
	for _, k := range [][]byte{kEmpty, kNil} {
		out, ok = get(t, a, bytes.Clone(prefix), k)
		if !ok || !bytes.Equal(out, prefix) {
			t.Errorf("Get(%q) of an empty value = %q, %v; want %q, true", k, out, ok, prefix)
		}
	}
	out, ok = get(t, a, bytes.Clone(prefix), []byte("no-such-key"))
	if ok || !bytes.Equal(out, prefix) {
		t.Errorf("Get(missing) = %q, %v; want dst unchanged %q, false", out, ok, prefix)
	}
	// The key buffer may be reused by the caller after Set: change it and
	// make sure the stored key and value did not change with it.
	kb, vb := []byte("reused-key"), []byte("reused-val")
	if _, isFreezer := a.(engine.Freezer); !isFreezer {
		mustSet(t, a, kb, vb)
		copy(kb, "XXXXXXXXXX")
		copy(vb, "YYYYYYYYYY")
		if d, ok := a.(engine.Drainer); ok {
			d.Drain()
		}
		out, ok = get(t, a, nil, []byte("reused-key"))
		if !ok || string(out) != "reused-val" {
			t.Errorf("after the caller reused its buffers Get = %q, %v; want %q", out, ok, "reused-val")
		}
	}

	c, ok := a.(engine.Configurer)
	if !ok {
		t.Fatalf("%s does not implement engine.Configurer", f.Name)
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

// testBulk sets half the budget, then checks every value from one and from
// eight goroutines, Len and Stats.
func testBulk(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
			t.Errorf("WRONG VALUE for %q: got %q, want %q", k, out, vals[i])
		}
	}
	checkHits(t, f, hits, len(keys))

	if l, ok := a.(engine.Lener); ok {
		n := l.Len()
		if isExact(f) && n != len(keys) {
			t.Errorf("Len() = %d, want %d", n, len(keys))
		}
		if !isExact(f) && (n < hits || n > len(keys)) {
			t.Errorf("Len() = %d, want between the %d keys found and the %d set", n, hits, len(keys))
		}
	}

	// Concurrent readers, each in its own order; run under -race.
	var wrong, found atomic.Int64
	var errs sync.Map
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
					errs.Store(r, err)
					return
				}
				dst = out
				if ok {
					found.Add(1)
					if !bytes.Equal(out, vals[i]) {
						wrong.Add(1)
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
	if n := wrong.Load(); n > 0 {
		t.Errorf("concurrent Gets returned %d WRONG VALUES", n)
	}
	// Each reader makes len(keys) lookups in its own order (strides that
	// share a factor with len(keys) revisit some keys, which is fine): an
	// exact store must find every one of them.
	if isExact(f) && found.Load() != int64(readers*len(keys)) {
		t.Errorf("concurrent Gets found %d of %d lookups", found.Load(), readers*len(keys))
	}

	if s, ok := a.(engine.Statser); ok {
		st := s.Stats()
		if len(st) == 0 {
			t.Errorf("Stats() is empty")
		}
		for k := range st {
			if k == "" || k != strings.ToLower(k) || strings.ContainsAny(k, " -") {
				t.Errorf("Stats key %q is not snake_case", k)
			}
		}
		t.Logf("stats: %v", st)
	}

	// Allocations of a hit with room in dst: logged for the README, not
	// asserted (some libraries copy by design).
	dst := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(200, func() {
		_, _, _ = a.Get(dst[:0], keys[7])
	})
	t.Logf("allocs per Get hit: %.1f", allocs)
}

func checkHits(t *testing.T, f engine.Factory, hits, n int) {
	t.Helper()
	if isExact(f) {
		if hits != n {
			t.Errorf("found %d of %d keys; %s must hold every entry", hits, n, f.Name)
		}
		return
	}
	if frac := float64(hits) / float64(n); frac < minHitFraction {
		t.Errorf("found %d of %d keys (%.1f%%) with a budget of %d entries / %d bytes; want at least %.0f%%",
			hits, n, 100*frac, budgetEntries, budgetBytes, 100*minHitFraction)
	} else if hits < n {
		t.Logf("bounded cache found %d of %d keys", hits, n)
	}
}

// testOverwrite checks that a second Set of a key replaces the value
// (mutable adapters) or follows the documented duplicates rule
// (write-once stores).
func testOverwrite(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
		out, ok := get(t, a, nil, k)
		if !ok || !bytes.Equal(out, want) {
			t.Errorf("duplicate key (%v): Get = %q, %v; want %q", rule, out, ok, want)
		}
		return
	}

	mustSet(t, a, k, v1)
	settle(t, a)
	mustSet(t, a, k, v2)
	settle(t, a)
	out, ok := get(t, a, nil, k)
	if !ok || !bytes.Equal(out, v2) {
		t.Errorf("after overwrite Get = %q, %v; want %q, true", out, ok, v2)
	}
	// Shorter value after a longer one.
	mustSet(t, a, k, v1)
	settle(t, a)
	if out, ok = get(t, a, nil, k); !ok || !bytes.Equal(out, v1) {
		t.Errorf("after overwrite with a shorter value Get = %q, %v; want %q, true", out, ok, v1)
	}

	// Two Sets of a new key with no Drain between them: the last value or
	// (for a lossy cache) nothing, never the first.
	k2 := []byte("back-to-back")
	mustSet(t, a, k2, v1)
	mustSet(t, a, k2, v2)
	settle(t, a)
	out, ok = get(t, a, nil, k2)
	switch {
	case !ok && isExact(f):
		t.Errorf("back-to-back Sets: key lost")
	case ok && bytes.Equal(out, v1):
		if why, known := staleAfterBackToBackSet[f.Name]; known {
			t.Logf("documented quirk: back-to-back Sets keep the first value (%s)", why)
		} else {
			t.Errorf("back-to-back Sets: Get returned the FIRST value %q, want %q", out, v2)
		}
	case ok && !bytes.Equal(out, v2):
		t.Errorf("back-to-back Sets: WRONG VALUE %q", out)
	}
}

func testDelete(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
		t.Errorf("Delete(present) = %v, %v; want true, nil", present, err)
	}
	if d, ok := a.(engine.Drainer); ok {
		d.Drain()
	}
	if _, found := get(t, a, nil, k); found {
		t.Errorf("Get after Delete found the key")
	}
	if present, err := d.Delete(k); err != nil || present {
		t.Errorf("second Delete = %v, %v; want false, nil", present, err)
	}
	if present, err := d.Delete([]byte("never-set")); err != nil || present {
		t.Errorf("Delete(missing) = %v, %v; want false, nil", present, err)
	}
	if out, found := get(t, a, nil, keep); !found || string(out) != "kept" {
		t.Errorf("Delete removed or changed another key: Get = %q, %v", out, found)
	}
}

// testLifecycle checks the Freezer and FileBacked contracts: no Get before
// Freeze, no Set after, Paths that exist, Reopen that still finds the data.
func testLifecycle(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
	defer closeAdapter(t, a)
	fz, isFreezer := a.(engine.Freezer)
	fb, isFile := a.(engine.FileBacked)
	if f.Kind == engine.FileStore && !isFile {
		t.Errorf("a %s adapter should implement engine.FileBacked", f.Kind)
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
		} else if !errors.Is(err, adapters.ErrNotFrozen) {
			t.Logf("Get before Freeze: %v (not ErrNotFrozen)", err)
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
		if out, ok := get(t, a, nil, testKey(3)); !ok || !bytes.Equal(out, testValue(3)) {
			t.Errorf("after Freeze Get(%q) = %q, %v; want %q", testKey(3), out, ok, testValue(3))
		}
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
		out, ok := get(t, a, nil, testKey(i))
		if !ok || !bytes.Equal(out, testValue(i)) {
			t.Fatalf("after Reopen Get(%q) = %q, %v; want %q", testKey(i), out, ok, testValue(i))
		}
	}
}

// testEviction overfills an in-memory adapter fivefold (entry budget 1,000;
// byte budget 1 MiB) and checks that whatever it still holds is right.
func testEviction(t *testing.T, f engine.Factory) {
	o := testOptions(t)
	o.Entries, o.MemoryBytes = 1_000, 1<<20
	a := newAdapter(t, f, o)
	defer closeAdapter(t, a)
	const n = 5_000
	for i := 0; i < n; i++ {
		if err := a.Set(testKey(i), testValue(i)); err != nil {
			t.Fatalf("Set(%q) into a full cache: %v", testKey(i), err)
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
			t.Errorf("WRONG VALUE after eviction for %q: %q", testKey(i), out)
		}
	}
	if isExact(f) && hits != n {
		t.Errorf("unbounded adapter found %d of %d", hits, n)
	}
	if l, ok := a.(engine.Lener); ok && !isExact(f) {
		t.Logf("after overfill: %d found, Len() = %d", hits, l.Len())
	} else {
		t.Logf("after overfill: %d of %d found", hits, n)
	}
	if hits == 0 {
		t.Errorf("overfilled cache holds nothing")
	}
}

// testLimits sets entries at the edges libraries handle badly (an empty
// key, a 70 KiB key, values of 70 KiB and 1 MiB) into an adapter whose
// budget could hold them. Each must either be refused with an error or be
// read back intact: a nil error followed by a miss is a silent drop.
func testLimits(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
			t.Errorf("%s: Set returned nil but Get does not find it (silent drop)", c.name)
		case !bytes.Equal(out, c.v):
			t.Errorf("%s: WRONG VALUE (%d bytes, want %d)", c.name, len(out), len(c.v))
		default:
			t.Logf("%s: stored", c.name)
		}
	}
}

// testConcurrentSet builds the adapter from four goroutines writing
// disjoint keys (Set must be safe for concurrent use, also while a
// write-once store is being built) and checks the result.
func testConcurrentSet(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
					errs.Store(w, err)
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
			t.Errorf("WRONG VALUE for %q after concurrent Sets: %q", testKey(i), out)
		}
	}
	checkHits(t, f, hits, writers*per)
}

// testMixed runs writers that keep replacing values (each key alternates
// between two legitimate values) against readers, for mutable adapters:
// a reader may see either value or, for a bounded cache, a miss, but never
// a torn or foreign value.
func testMixed(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
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
	var wrong atomic.Int64
	var errs sync.Map
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
						errs.Store(fmt.Sprintf("writer %d", w), err)
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
					errs.Store(fmt.Sprintf("reader %d", r), err)
					return
				}
				dst = out
				if ok && !bytes.Equal(out, testValue(i)) && !bytes.Equal(out, alt(i)) {
					wrong.Add(1)
				}
			}
		}(r)
	}
	wg.Wait()
	errs.Range(func(who, err any) bool {
		t.Errorf("mixed Get/Set (%v): %v", who, err)
		return true
	})
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d reads returned a WRONG VALUE while keys were being replaced", n)
	}
	// After the writers are done each key holds its last value: rounds is
	// even, so the last round (odd) wrote testValue.
	settle(t, a)
	for i := 0; i < keys; i++ {
		out, ok := get(t, a, nil, testKey(i))
		if ok && !bytes.Equal(out, testValue(i)) {
			t.Errorf("after the writers: Get(%q) = %q, want %q", testKey(i), out, testValue(i))
		} else if !ok && isExact(f) {
			t.Errorf("after the writers: %q lost", testKey(i))
		}
	}
}

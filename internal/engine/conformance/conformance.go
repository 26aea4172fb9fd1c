// Package conformance is the one conformance suite of cachebench adapters:
// the built-in adapters' test (engine/adapters) and the public helper
// (package cachetest) both call Run, so an external cache is held to
// exactly the checks the built-in ones pass.
//
// The checks are what a benchmark needs to trust an adapter's figures:
// values read back are the values written (round trips, overwrites,
// binary, empty and large keys and values), Get appends to dst and keeps
// neither dst nor key, Set keeps neither of the caller's buffers, the
// adapter is safe for concurrent use (run the test with -race), it holds
// what its budget promises and no more than its budget, and the optional
// capabilities it implements (Freezer, Drainer, Deleter, Lener, Statser,
// FileBacked, BatchGetter, Configurer, Float64sStore) keep their
// contracts. An adapter that holds float64 vectors only (Set of bytes is
// errors.ErrUnsupported) is checked as a Float64sStore alone. A failure
// names the key and shows the expected and the actual bytes.
package conformance

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// Options says what the suite may expect of one adapter beyond its
// Factory. The zero value fits a bounded in-memory cache.
type Options struct {
	// Exact says the adapter never drops an entry it accepted (an
	// unbounded map, a file store). File stores (engine.FileStore) are
	// always exact. An exact adapter must find every key it was given;
	// a bounded one at least MinHitFraction of a working set half its
	// budget, and its budget is checked from above (see Budget).
	Exact bool
	// StaleBackToBack, if set, documents why the adapter may keep the
	// first of two Sets of a new key issued before its write buffer is
	// applied; that case is then logged instead of failing.
	StaleBackToBack string
}

// Budget the suite gives each adapter (engine.Options), and what it
// expects of it.
const (
	// BudgetEntries is Options.Entries of most checks.
	BudgetEntries = 10_000
	// BudgetBytes is Options.MemoryBytes of most checks.
	BudgetBytes = 64 << 20
	// MaxValueSize is Options.MaxValueSize of most checks (the limits
	// check then sets larger values, which may be refused).
	MaxValueSize = 256
	// MinHitFraction is the least a bounded cache must find of a working
	// set half its entry budget.
	MinHitFraction = 0.90
	// overfillEntries and overfillBytes are the budget of the eviction
	// check, which sets five times overfillEntries entries.
	overfillEntries = 1_000
	overfillBytes   = 1 << 20
	// budgetSlack is how far above its budget a bounded cache may go
	// (counts published in batches, a rounding to pages or shards).
	budgetSlack = 1.05
	bulkKeys    = BudgetEntries / 2
	readers     = 8
)

// Run runs every check against the adapter f builds, each as a subtest of
// t. A factory of kind engine.Network needs its servers; the caller skips
// or arranges them. Probes (engine.Probe) store nothing and are refused.
func Run(t *testing.T, f engine.Factory, o Options) {
	t.Helper()
	if f.New == nil || f.Name == "" {
		t.Fatal("conformance: the factory needs a Name and a New function")
	}
	if f.Kind == engine.Probe {
		t.Fatalf("conformance: %s is a probe: it stores nothing by design", f.Name)
	}
	if f.Kind == engine.FileStore {
		o.Exact = true
	}
	s := suite{f: f, o: o}
	if s.vectorsOnly(t) {
		t.Run("float64s", s.float64s)
		return
	}
	t.Run("basics", s.basics)
	t.Run("binary", s.binary)
	t.Run("dst", s.dst)
	t.Run("bulk", s.bulk)
	t.Run("overwrite", s.overwrite)
	t.Run("delete", s.delete)
	t.Run("lifecycle", s.lifecycle)
	t.Run("limits", s.limits)
	t.Run("concurrent-set", s.concurrentSet)
	t.Run("mixed", s.mixed)
	t.Run("batch", s.batch)
	t.Run("float64s", s.float64s)
	if f.Kind == engine.InMemory {
		t.Run("eviction", s.eviction)
	}
}

// suite is one adapter's checks.
type suite struct {
	f engine.Factory
	o Options
}

func (s suite) options(t *testing.T) engine.Options {
	return engine.Options{
		Entries:      BudgetEntries,
		MemoryBytes:  BudgetBytes,
		MaxValueSize: MaxValueSize,
		Dir:          t.TempDir(),
	}
}

// testKey and testValue make the bulk data: each value carries its key's
// index, so a value returned for the wrong key is detected, and has a
// length from 0 to 200 bytes.
func testKey(i int) []byte { return fmt.Appendf(nil, "key-%07d", i) }

func testValue(i int) []byte {
	v := fmt.Appendf(nil, "v%d:", i)
	for j := 0; j < i%190; j++ {
		v = append(v, byte('a'+(i+j)%26))
	}
	return v
}

func (s suite) newAdapter(t *testing.T, o engine.Options) engine.Adapter {
	t.Helper()
	a, err := s.f.New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	if a == nil {
		t.Fatalf("New(%+v) returned a nil adapter and no error", o)
	}
	if a.Name() != s.f.Name {
		t.Errorf("Name() = %q, registered as %q", a.Name(), s.f.Name)
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
	drain(a)
}

func drain(a engine.Adapter) {
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
		t.Fatalf("Set(%s, %d bytes): %v", show(k), len(v), err)
	}
}

func get(t *testing.T, a engine.Adapter, dst, k []byte) ([]byte, bool) {
	t.Helper()
	out, ok, err := a.Get(dst, k)
	if err != nil {
		t.Fatalf("Get(%s): %v", show(k), err)
	}
	return out, ok
}

// showMax is how many bytes of a key or value a message shows.
const showMax = 64

// show quotes b for a message, cut to showMax bytes with its length said.
func show(b []byte) string {
	if len(b) <= showMax {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:showMax], len(b))
}

// diff describes how got differs from want: their lengths, the first
// differing offset and the bytes around it.
func diff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-8)
	cut := func(b []byte) []byte { return b[min(from, len(b)):min(i+16, len(b))] }
	return fmt.Sprintf("want %d bytes %s, got %d bytes %s; first difference at byte %d: want %q, got %q",
		len(want), show(want), len(got), show(got), i, cut(want), cut(got))
}

// wrongValue reports a value read back that is not the one written.
func wrongValue(t *testing.T, what string, key, want, got []byte) {
	t.Helper()
	t.Errorf("%s: WRONG VALUE for key %s: %s", what, show(key), diff(want, got))
}

// checkGet gets key into a copy of prefix and checks that the result is
// prefix followed by want (found) or prefix alone (want nil, missing).
// It reports whether the key was found with the right value.
func checkGet(t *testing.T, what string, a engine.Adapter, prefix, key, want []byte, mustFind bool) bool {
	t.Helper()
	dst := bytes.Clone(prefix)
	out, ok := get(t, a, dst, key)
	if !ok {
		if mustFind {
			t.Errorf("%s: key %s not found; want %s", what, show(key), show(want))
		}
		if !bytes.Equal(out, prefix) {
			t.Errorf("%s: a miss for key %s changed dst: %s", what, show(key), diff(prefix, out))
		}
		return false
	}
	if want == nil {
		t.Errorf("%s: key %s found (%s); want a miss", what, show(key), show(out))
		return false
	}
	full := append(bytes.Clone(prefix), want...)
	if !bytes.Equal(out, full) {
		wrongValue(t, what, key, full, out)
		return false
	}
	return true
}

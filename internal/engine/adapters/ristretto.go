package adapters

import (
	"fmt"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "ristretto",
		Kind:        engine.InMemory,
		Description: "dgraph-io/ristretto v2: TinyLFU admission, sampled LFU eviction, cost 1 per entry",
		New:         newRistrettoAdapter,
	})
}

const ristrettoBufferItems = 64

// ristrettoAdapter drives ristretto.Cache[string, []byte] as an
// entry-bounded cache: every Set costs 1, MaxCost is Options.Entries and
// IgnoreInternalCost is set, so the cache really holds Entries entries (with
// the default internal cost added to each item, it would hold a fraction).
// NumCounters is 10 × Entries, as ristretto's documentation advises.
//
// ristretto applies new keys asynchronously through a buffered channel: a
// Set is not visible until its goroutine has processed it, and a Set that
// finds the channel full is dropped and Set returns false. A user who needs
// the entry back (and every workload here does: insert-lookup would
// otherwise measure lookups of a cache holding a quarter of the keys) waits
// for the buffer to drain and sets again; the adapter does the same and
// counts it, and the cost of the wait is inside the measured Set. Drain
// calls Wait so that every Set issued before is visible.
//
// Metrics are off: they add atomic counters to every Get and Set that no
// other adapter pays for. The entries held are counted instead from what
// ristretto already reports (Stats "entries", read after a Drain): every
// Set it accepts either adds an entry or, through its OnExit callback,
// says that a value went (a new key rejected by admission, the old value
// of an updated key), and every eviction calls OnExit too; so held =
// accepted Sets - exits. That costs one atomic add per accepted Set and
// per exit, on the Set path only (Get is untouched). Del calls OnExit
// also for an absent key, and again when its deletion is applied, so
// after a Delete the count is no longer reported.
type ristrettoAdapter struct {
	c       *ristretto.Cache[string, []byte]
	cfg     ristretto.Config[string, []byte]
	retries atomic.Uint64
	// accepted counts Sets ristretto took, exits its OnExit calls;
	// deleted is set by the first Delete.
	accepted, exits atomic.Int64
	deleted         atomic.Bool
}

func newRistrettoAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a := &ristrettoAdapter{}
	a.cfg = ristretto.Config[string, []byte]{
		NumCounters:        10 * int64(o.Entries),
		MaxCost:            int64(o.Entries),
		BufferItems:        ristrettoBufferItems,
		Metrics:            false,
		IgnoreInternalCost: true,
		OnExit:             func([]byte) { a.exits.Add(1) },
	}
	c, err := ristretto.NewCache(&a.cfg)
	if err != nil {
		return nil, fmt.Errorf("ristretto: new (max cost %d): %w", a.cfg.MaxCost, err)
	}
	a.c = c
	return a, nil
}

func (a *ristrettoAdapter) Name() string { return "ristretto" }

// Set passes the key through unsafeString: ristretto keeps only two hashes
// of a key, never the key itself. The value is copied.
func (a *ristrettoAdapter) Set(key, val []byte) error {
	v := cloneBytes(val)
	if !a.c.Set(unsafeString(key), v, 1) {
		a.retries.Add(1)
		a.c.Wait()
		if !a.c.Set(unsafeString(key), v, 1) {
			return fmt.Errorf("ristretto: set %q dropped twice", key)
		}
	}
	a.accepted.Add(1)
	return nil
}

// Get looks up through unsafeString (the key is only hashed).
func (a *ristrettoAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.c.Get(unsafeString(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter. ristretto's Del reports nothing, so
// presence comes from GetTTL just before it (it touches neither the policy
// nor the hit counters; not atomic with the Del).
func (a *ristrettoAdapter) Delete(key []byte) (bool, error) {
	k := unsafeString(key)
	_, ok := a.c.GetTTL(k)
	a.deleted.Store(true)
	a.c.Del(k)
	return ok, nil
}

// Drain implements engine.Drainer.
func (a *ristrettoAdapter) Drain() { a.c.Wait() }

// Stats implements engine.Statser. "entries" is exact once the set
// buffer is drained (Drain) and absent after a Delete.
func (a *ristrettoAdapter) Stats() map[string]uint64 {
	s := map[string]uint64{"sets_retried_after_drop": a.retries.Load()}
	if !a.deleted.Load() {
		s["entries"] = uint64(max(a.accepted.Load()-a.exits.Load(), 0))
	}
	return s
}

// Config implements engine.Configurer.
func (a *ristrettoAdapter) Config() map[string]string {
	return map[string]string{
		"budget":               "Options.Entries as MaxCost, cost 1 per entry",
		"max_cost":             i64toa(a.cfg.MaxCost),
		"num_counters":         i64toa(a.cfg.NumCounters) + " (10 x entries)",
		"buffer_items":         i64toa(a.cfg.BufferItems),
		"ignore_internal_cost": btoa(a.cfg.IgnoreInternalCost),
		"metrics":              btoa(a.cfg.Metrics) + " (their counters would cost every operation)",
		"entries_held":         "accepted Sets minus OnExit calls (rejections, replaced values, evictions), read after a drain",
		"dropped_sets":         "Set returned false (buffer full): Wait() and set again, counted in sets_retried_after_drop",
		"key_hash":             "default (memhash + xxhash); keys are not stored",
		"admission":            "TinyLFU: a new key may be rejected when the cache is full; sets may be dropped when the set buffer is full",
		"drain":                "Wait()",
		"expiry":               "none",
	}
}

// Close stops ristretto's goroutine and drops its entries.
func (a *ristrettoAdapter) Close() error {
	a.c.Close()
	return nil
}

package adapters

import (
	"fmt"

	arc "github.com/hashicorp/golang-lru/arc/v2"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "arc",
		Kind:        engine.InMemory,
		Description: "hashicorp/golang-lru arc v2: Adaptive Replacement Cache behind one mutex, entry-bounded (hit-ratio reference)",
		New:         newARCAdapter,
	})
}

// arcAdapter drives hashicorp's ARCCache[string, []byte] bounded by
// Options.Entries: Megiddo and Modha's ARC, which balances a recency list
// and a frequency list using ghost lists of recently evicted keys.
type arcAdapter struct {
	c       *arc.ARCCache[string, []byte]
	entries int
}

func newARCAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c, err := arc.NewARC[string, []byte](o.Entries)
	if err != nil {
		return nil, fmt.Errorf("arc: new (size %d): %w", o.Entries, err)
	}
	return &arcAdapter{c: c, entries: o.Entries}, nil
}

func (a *arcAdapter) Name() string { return "arc" }

// Set stores a copied key and value.
func (a *arcAdapter) Set(key, val []byte) error {
	a.c.Add(string(key), cloneBytes(val))
	return nil
}

// Get copies the key: a hit in ARC's recency list re-inserts the entry
// into the frequency list under the key passed to Get, so a view of the
// caller's buffer would end up stored. That costs one allocation per Get.
func (a *arcAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.c.Get(string(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter. ARCCache.Remove reports nothing, so
// presence comes from Contains just before (not atomic with it).
func (a *arcAdapter) Delete(key []byte) (bool, error) {
	k := string(key)
	ok := a.c.Contains(k)
	a.c.Remove(k)
	return ok, nil
}

// Len implements engine.Lener (resident entries, not the ghost lists).
func (a *arcAdapter) Len() int { return a.c.Len() }

// Config implements engine.Configurer.
func (a *arcAdapter) Config() map[string]string {
	return map[string]string{
		"budget":  "Options.Entries as the ARC size (each entry counts 1; ghost lists hold up to as many keys again)",
		"size":    itoa(a.entries),
		"policy":  "ARC: recency list T1 and frequency list T2 sized adaptively by hits in ghost lists B1/B2",
		"locking": "one sync.Mutex around every operation (Get included)",
		"get":     "copies the key (a T1 hit stores it in T2): one allocation per Get",
		"set":     "copies key and value",
		"expiry":  "none",
	}
}

// Close drops every entry.
func (a *arcAdapter) Close() error {
	a.c.Purge()
	return nil
}

package adapters

import (
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "lru",
		Kind:        engine.InMemory,
		Description: "hashicorp/golang-lru v2: textbook LRU behind one mutex, entry-bounded (in hitratio, lru is the lab's own LRU, with the same hits)",
		New:         newLRUAdapter,
	})
}

// lruAdapter drives hashicorp's lru.Cache[string, []byte] bounded by
// Options.Entries: the textbook LRU that `cachebench run` measures beside
// the caches that claim to beat it. hitratio replays its own LRU under
// the same name, which gets the same hits at every size
// (hitratio.TestLRUReferenceMatchesAdapter) without a key, a value or a
// lock per request.
type lruAdapter struct {
	c       *lru.Cache[string, []byte]
	entries int
}

func newLRUAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c, err := lru.New[string, []byte](o.Entries)
	if err != nil {
		return nil, fmt.Errorf("lru: new (size %d): %w", o.Entries, err)
	}
	return &lruAdapter{c: c, entries: o.Entries}, nil
}

func (a *lruAdapter) Name() string { return "lru" }

// Set stores a copied key and value.
func (a *lruAdapter) Set(key, val []byte) error {
	a.c.Add(string(key), cloneBytes(val))
	return nil
}

// Get looks up through unsafeString: Cache.Get only indexes its map and
// moves the found element; it never stores the key it is given.
func (a *lruAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.c.Get(unsafeString(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter.
func (a *lruAdapter) Delete(key []byte) (bool, error) {
	return a.c.Remove(unsafeString(key)), nil
}

// Len implements engine.Lener.
func (a *lruAdapter) Len() int { return a.c.Len() }

// Config implements engine.Configurer.
func (a *lruAdapter) Config() map[string]string {
	return map[string]string{
		"budget":   "Options.Entries as the LRU size (each entry counts 1)",
		"size":     itoa(a.entries),
		"policy":   "LRU: a hit moves the entry to the front, a Set beyond size evicts the back",
		"locking":  "one sync.Mutex around every operation (Get included)",
		"set":      "copies key and value",
		"expiry":   "none",
		"eviction": "synchronous, inside Set",
	}
}

// Close drops every entry.
func (a *lruAdapter) Close() error {
	a.c.Purge()
	return nil
}

package adapters

import (
	"fmt"

	"github.com/Yiling-J/theine-go"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "theine",
		Kind:        engine.InMemory,
		Description: "Yiling-J/theine-go: adaptive W-TinyLFU with a count-min sketch, entry-bounded",
		New:         newTheineAdapter,
	})
}

// theineAdapter drives theine.Cache[string, []byte] bounded by
// Options.Entries (every Set costs 1).
//
// theine applies reads and writes to its policy through buffers drained
// under a lock; Drain (Wait) applies what is pending so reads are
// measured against a settled cache. A Set that the admission policy
// rejects is not an error: the key is simply not cached.
type theineAdapter struct {
	c       *theine.Cache[string, []byte]
	entries int
}

func newTheineAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c, err := theine.NewBuilder[string, []byte](int64(o.Entries)).Build()
	if err != nil {
		return nil, fmt.Errorf("theine: new (maxsize %d): %w", o.Entries, err)
	}
	return &theineAdapter{c: c, entries: o.Entries}, nil
}

func (a *theineAdapter) Name() string { return "theine" }

// Set stores a copied key and value with cost 1.
func (a *theineAdapter) Set(key, val []byte) error {
	a.c.Set(string(key), cloneBytes(val), 1)
	return nil
}

// Get looks up through unsafeString: theine hashes the key and compares
// it with the stored entry's own key; the read buffer records the entry,
// never the key given to Get.
func (a *theineAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.c.Get(unsafeString(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter. theine's Delete reports nothing, so
// presence comes from a Get just before it (not atomic with it; the Get
// counts as a read in theine's statistics).
func (a *theineAdapter) Delete(key []byte) (bool, error) {
	k := string(key)
	_, ok := a.c.Get(k)
	a.c.Delete(k)
	return ok, nil
}

// Len implements engine.Lener.
func (a *theineAdapter) Len() int { return a.c.Len() }

// Drain implements engine.Drainer.
func (a *theineAdapter) Drain() { a.c.Wait() }

// Stats implements engine.Statser.
func (a *theineAdapter) Stats() map[string]uint64 {
	s := a.c.Stats()
	return map[string]uint64{
		"hits":    s.Hits(),
		"misses":  s.Misses(),
		"entries": uint64(max(a.c.Len(), 0)),
	}
}

// Config implements engine.Configurer.
func (a *theineAdapter) Config() map[string]string {
	return map[string]string{
		"budget":     "Options.Entries as maxsize, cost 1 per entry",
		"maxsize":    itoa(a.entries),
		"policy":     "adaptive W-TinyLFU (window LRU + segmented LRU main, count-min sketch admission; theine default)",
		"doorkeeper": "off (theine default)",
		"entry_pool": "off (theine default)",
		"set":        "copies key and value; a Set the admission policy rejects is not cached",
		"expiry":     "none",
	}
}

// Close stops theine's maintenance goroutine.
func (a *theineAdapter) Close() error {
	a.c.Close()
	return nil
}

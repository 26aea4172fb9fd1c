// Package engine defines the one interface every cache or store under test
// implements, the optional capabilities a runner discovers by type assertion,
// and the registry that maps adapter names to constructors.
//
// The interface is deliberately small (the shape of fastcache's Get(dst, k))
// so that in-memory caches, write-once mmap stores, transactional stores and
// network caches all fit it without change. Everything that only some
// adapters can do is an optional interface below. Resolve turns a
// command line's adapter list (names and groups) into factories.
//
// Adapters live in engine/adapters, our own engines in engine/shardcache
// and engine/mmapstore (which do not import engine).
package engine

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
)

// Adapter is one cache or key/value store driven by the benchmarks.
//
// Implementations must be safe for concurrent use by multiple goroutines
// once constructed (and, for a Freezer, once frozen).
type Adapter interface {
	// Name returns the registry name of the adapter ("map", "fastcache", ...).
	Name() string
	// Set stores val under key. Adapters that may drop a write by design
	// (admission policies, eviction) return nil; the runner measures
	// what is really held through hit ratios.
	Set(key, val []byte) error
	// Get appends the value stored under key to dst and returns the
	// extended slice and whether the key was found. Get must not retain
	// dst or key. A store that can only return a copy still appends.
	Get(dst, key []byte) ([]byte, bool, error)
	// Close releases every resource (memory, mappings, files, connections).
	Close() error
}

// Freezer is implemented by write-once stores (CDB, our mmap store): after
// the last Set, Freeze finishes the file (including fsync) and opens it for
// reads. Gets before Freeze and Sets after it are errors.
type Freezer interface {
	Freeze() error
}

// Drainer is implemented by caches that buffer writes asynchronously
// (ristretto, otter's maintenance): Drain returns once every Set issued
// before the call is visible to Get. The runner calls it before reads are
// measured so that a cache is never timed against work it has not done,
// and hitratio after every Set, so that a cache that evicts on its own
// goroutine is measured at its budget.
type Drainer interface {
	Drain()
}

// Deleter is implemented by adapters that can remove a key.
type Deleter interface {
	// Delete removes key and reports whether it was present.
	Delete(key []byte) (bool, error)
}

// Lener is implemented by adapters that can count their entries.
type Lener interface {
	Len() int
}

// Statser is implemented by adapters that expose internal counters
// (evictions, collisions, dropped sets). Keys are stable snake_case names.
type Statser interface {
	Stats() map[string]uint64
}

// Configurer is implemented by adapters whose effective configuration
// (shards, sizes, policies) should be written into the results manifest.
// Every registered adapter should implement it.
type Configurer interface {
	Config() map[string]string
}

// FileBacked is implemented by stores that live in a file. The runner uses
// it to time a fresh open separately from lookups and to drop the file's
// pages from the page cache before a cold pass.
type FileBacked interface {
	// Paths returns the files the store reads (for page-cache dropping).
	Paths() []string
	// Reopen closes and reopens the frozen store for reading.
	Reopen() error
}

// Interrupter is implemented by adapters whose operations can wait on
// something outside the process (a network server): Interrupt makes the
// operations in flight return at once with an error, and every later one
// fail without waiting. The runner calls it when the run is cancelled, so
// that Ctrl-C is not held up by requests waiting out their timeout.
type Interrupter interface {
	Interrupt()
}

// BatchGetter is implemented by stores with a batched lookup that overlaps
// the memory accesses of many keys. fn is called once per key, in order,
// with a value that is only valid during the call.
type BatchGetter interface {
	GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error
}

// Kind groups adapters by what they are; the default suite picks a kind.
type Kind string

// Adapter kinds.
const (
	// InMemory caches live in the process heap or in anonymous mappings.
	InMemory Kind = "memory"
	// FileStore adapters persist to a file and are read back (often mmap'd).
	FileStore Kind = "file"
	// Network adapters talk to a server (memcached, Redis). Only the group
	// "network" includes them, never "all".
	Network Kind = "network"
	// Probe adapters measure the harness rather than a cache. No group
	// ("memory", "file", "all") includes them.
	Probe Kind = "probe"
)

// ProbeName is the registry name of the harness-floor probe (package
// workloads registers it): it stores nothing and answers every key, so its
// figures are the cost of the measuring loop itself. Renderers print it
// under each table instead of ranking it among the caches.
const ProbeName = "null"

// ErrEntryTooLarge is returned (wrapped) by Set when a cache would drop or
// corrupt an entry because of its size; the message names the limit. The
// hit-ratio lab counts such sets as refused rather than failed.
var ErrEntryTooLarge = errors.New("entry too large for this adapter")

// Options carries the budget every adapter in one run gets, so that the
// comparison is fair. Each adapter documents in Config which of the fields
// it uses and how.
type Options struct {
	// Entries is the number of entries the adapter must be able to hold
	// (the entry budget). Entry-bounded caches use it directly.
	Entries int
	// MemoryBytes is the memory budget for byte-bounded caches (arena
	// caches such as bigcache, fastcache and freecache). The runner derives
	// it from Entries and the workload's key and value sizes.
	MemoryBytes int64
	// MaxValueSize is the largest value the workload will set.
	MaxValueSize int
	// Dir is a scratch directory for file-backed stores; the runner removes it.
	Dir string
	// Network configures the network adapters (servers, connections).
	Network NetworkOptions
	// Seed is the workload's seed. Caches ignore it; the null probe needs
	// it to answer with values the runner's verification accepts.
	Seed uint64
}

// Validate checks the budget fields.
func (o Options) Validate() error {
	if o.Entries <= 0 {
		return fmt.Errorf("engine: entry budget must be positive, got %d", o.Entries)
	}
	if o.MemoryBytes <= 0 {
		return fmt.Errorf("engine: memory budget must be positive, got %d", o.MemoryBytes)
	}
	return nil
}

// Factory describes one registered adapter.
type Factory struct {
	// Name is the registry name used on the command line.
	Name string
	// Kind says what sort of adapter it is.
	Kind Kind
	// Description is one line for `cachebench list`.
	Description string
	// TestOnly marks adapters that exist to test cachebench itself (the
	// injected slowdown of the regression gate's experiment, built with
	// -tags slowdown). Groups never include them; they run only when
	// named.
	TestOnly bool
	// Group, if set, is the one group that selects the adapter besides its
	// name; the groups of its kind (memory, file, all) then leave it out.
	// Variants that exist for one workload use it: the float-vector stores
	// of read-vector are the group "vectors", so that adding them changes
	// no other suite.
	Group string
	// Unbounded marks adapters that never evict (map, syncmap): a sweep
	// of cache sizes leaves them out of the groups it is given.
	Unbounded bool
	// ByteBudget marks adapters sized by Options.MemoryBytes, which may
	// allocate all of it when made (freecache preallocates its rings):
	// a memory estimate counts their whole byte budget, where an
	// entry-bounded cache holds only the objects it is given.
	ByteBudget bool
	// Fixed, if set, is the memory the adapter allocates when made with
	// o beyond what it holds for its entries (bigcache: an encode buffer
	// of o.MaxValueSize per shard), for memory estimates.
	Fixed func(o Options) int64
	// New constructs an adapter for the given budget.
	New func(Options) (Adapter, error)
	// Public is, for cachebench's own engines, the import path of the
	// public package that serves the same engine to other modules
	// ("github.com/cachebench/cachebench/shardcache"); the commands name
	// it next to the figures, so a reader knows the winner is usable.
	// Empty for adapters of other libraries.
	Public string
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// ErrUnknownAdapter is returned (wrapped) by Lookup for a name that is not
// registered.
var ErrUnknownAdapter = errors.New("unknown adapter")

// Register adds f to the registry. It panics on a duplicate or empty name,
// since registration happens in init functions and such a bug must not ship.
func Register(f Factory) {
	if f.Name == "" || f.New == nil {
		panic("engine: Register needs a name and a constructor")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[f.Name]; dup {
		panic("engine: adapter registered twice: " + f.Name)
	}
	registry[f.Name] = f
}

// absent holds adapters this build leaves out (a build tag not given, cgo
// off), with how to get them; see RegisterAbsent.
var absent = map[string]string{}

// RegisterAbsent records that the adapter name exists but is not compiled
// into this binary, and how to get it, so that naming it says so instead
// of "unknown adapter", and `cachebench list` can show it.
func RegisterAbsent(name, how string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	absent[name] = how
}

// Absent returns the adapters left out of this build, each with how to
// get it.
func Absent() map[string]string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return maps.Clone(absent)
}

// Lookup returns the factory registered under name. The error lists the
// valid names so a command line can show them.
func Lookup(name string) (Factory, error) {
	registryMu.RLock()
	f, ok := registry[name]
	how, isAbsent := absent[name]
	registryMu.RUnlock()
	if isAbsent && !ok {
		return Factory{}, fmt.Errorf("%w %q: not in this build: %s", ErrUnknownAdapter, name, how)
	}
	if !ok {
		return Factory{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownAdapter, name, strings.Join(Names(""), ", "))
	}
	return f, nil
}

// All returns every registered factory sorted by kind, then name.
func All() []Factory {
	registryMu.RLock()
	out := make([]Factory, 0, len(registry))
	for _, f := range registry {
		out = append(out, f)
	}
	registryMu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns the sorted names of adapters of the given kind, or of all
// adapters when kind is empty.
func Names(kind Kind) []string {
	var names []string
	for _, f := range All() {
		if kind == "" || f.Kind == kind {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	return names
}

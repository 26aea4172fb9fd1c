// Package cachebench lets a cache author benchmark, verify and gate a cache
// of their own with cachebench, beside the caches cachebench ships with.
//
// Implement Adapter for the cache (Get appends to a caller's buffer, so
// that a read need not allocate), Register a Factory for it in an init
// function, and call Main from the program's main:
//
//	func init() {
//		cachebench.Register(cachebench.Factory{
//			Name: "yourcache", Kind: cachebench.InMemory,
//			Description: "yourcache: a FIFO cache bounded by entries",
//			New: func(o cachebench.Options) (cachebench.Adapter, error) {
//				return yourcache.New(o.Entries), nil
//			},
//		})
//	}
//
//	func main() { cachebench.Main() }
//
// The program is then the cachebench command line with the cache among
// the adapters: `list` shows it, and `run`, `hitratio`, `gc-pause`,
// `compare` and `gate` measure it beside shardcache, fastcache, otter and
// the others. Package cachetest checks an adapter with the conformance
// suite every built-in adapter passes; packages shardcache and mmapstore
// are cachebench's own engines as libraries.
//
// The built-in adapters implement this very interface: the names here are
// aliases of cachebench's internal engine package, so there is one
// interface, not a public copy of it. Importing this package links the
// whole command line and every built-in adapter (LMDB only in a build
// with -tags lmdb, which needs cgo): import it from a benchmark program
// and its tests, not from the cache's own library.
package cachebench

import (
	"github.com/cachebench/cachebench/internal/cli"
	"github.com/cachebench/cachebench/internal/engine"
)

// Adapter is one cache or key/value store driven by the benchmarks. Its
// methods, all safe for concurrent use once the adapter is constructed:
//
//	Name() string                              the registered name
//	Set(key, val []byte) error                 store val under key
//	Get(dst, key []byte) ([]byte, bool, error) append key's value to dst
//	Close() error                              release everything
//
// Set must not keep key or val (the caller reuses its buffers); a cache
// that drops a write by design (eviction, admission) returns nil and the
// benchmarks measure what it holds through hit ratios. Get appends the
// value to dst and returns the extended slice and whether the key was
// found; it must keep neither dst nor key. An entry too large for the
// cache is refused with an error wrapping ErrEntryTooLarge.
//
// The optional interfaces below (Freezer, Drainer, Deleter, Lener,
// Statser, Configurer, FileBacked, BatchGetter, Footprinter) are found by
// type assertion; implement those the cache supports.
type Adapter = engine.Adapter

// Freezer is implemented by write-once stores: Freeze() error is called
// after the last Set, finishes the store (including fsync) and opens it
// for reads. Gets before Freeze and Sets after it are errors.
type Freezer = engine.Freezer

// Drainer is implemented by caches that apply writes asynchronously:
// Drain() returns once every Set issued before the call is visible to Get.
// The benchmarks call it before reads are measured.
type Drainer = engine.Drainer

// Deleter is implemented by adapters that can remove a key:
// Delete(key []byte) (bool, error) reports whether the key was present.
type Deleter = engine.Deleter

// Lener is implemented by adapters that can count their entries:
// Len() int.
type Lener = engine.Lener

// Statser is implemented by adapters with internal counters (evictions,
// collisions, dropped sets): Stats() map[string]uint64, keys in snake_case.
type Statser = engine.Statser

// Configurer is implemented by every adapter that states its effective
// configuration: Config() map[string]string, written into each result's
// manifest. It should say how the adapter uses its budget (Options); the
// conformance suite (package cachetest) requires it.
type Configurer = engine.Configurer

// FileBacked is implemented by stores that live in files: Paths() []string
// names the files (their pages are dropped before a cold pass) and
// Reopen() error closes and reopens the frozen store (timed on its own).
type FileBacked = engine.FileBacked

// BatchGetter is implemented by stores with a batched lookup:
// GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error
// calls fn once per key, in order, with a value valid only during the call.
type BatchGetter = engine.BatchGetter

// Footprinter is implemented by adapters that can say what they hold
// against their memory limit: Footprint() (Footprint, error), read after
// a pass, outside any timed region.
type Footprinter = engine.Footprinter

// Footprint is what an adapter holds against its memory limit (held
// bytes, items, the limit, and where the figures come from).
type Footprint = engine.Footprint

// Options is the budget every adapter of a run gets, so that the
// comparison is fair: Entries (the entries it must be able to hold),
// MemoryBytes (the budget of byte-bounded caches, derived from Entries
// and the workload's sizes), MaxValueSize, Dir (a scratch directory for
// file stores), Network (network caches' servers) and Seed. An adapter
// uses Entries or MemoryBytes, whichever its cache is bounded by, and
// says which in Config.
type Options = engine.Options

// NetworkOptions configures adapters of network caches (servers to use,
// connections, pipelining, timeouts); it is the Network field of Options.
type NetworkOptions = engine.NetworkOptions

// Factory describes one adapter for Register: Name (its name on the
// command line), Kind, Description (one line for `list`), New (its
// constructor for a budget) and TestOnly (left out of the adapter groups
// such as "memory" and "all"; run only when named).
type Factory = engine.Factory

// Kind says what sort of adapter a Factory makes; the groups of the
// --adapters flag ("memory", "file", "all", "network") select by kind.
type Kind = engine.Kind

// Adapter kinds.
const (
	// InMemory caches live in the process (heap or anonymous mappings).
	InMemory = engine.InMemory
	// FileStore adapters persist to files and are read back; they are
	// exact (they hold every entry) and usually Freezers.
	FileStore = engine.FileStore
	// Network adapters talk to a server; only the group "network"
	// selects them.
	Network = engine.Network
)

// ErrEntryTooLarge is the error (wrapped) Set returns for an entry the
// cache cannot hold because of its size; the hit-ratio lab counts such
// sets as refused rather than failed.
var ErrEntryTooLarge = engine.ErrEntryTooLarge

// Register adds an adapter to the ones every command can select. Call it
// from an init function (or from main before Main): gc-pause re-executes
// the program for each adapter, and the child must find the same
// adapters. It panics on an empty name, a nil New or a name registered
// twice (the built-in names are those `list` prints).
func Register(f Factory) { engine.Register(f) }

// Main runs the cachebench command line with the process's arguments and
// exits with its code: 0 ok, 1 a failure (for compare and gate, a
// regression), 2 bad usage or input. Ctrl-C and SIGTERM cancel the
// command. When the process is a gc-pause child (the program re-executed
// by gc-pause), Main serves that child instead of parsing arguments.
func Main() { cli.Main() }

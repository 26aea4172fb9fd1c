// Package shardcache is cachebench's own in-memory cache as a library:
// sharded, bounded by bytes (and optionally by entries), evicting with a
// window TinyLFU policy by default, with TTLs, and invisible to the
// garbage collector however many entries it holds.
//
// Each shard keeps its entries in a ring of bytes and an open-addressing
// index, both in anonymous mappings outside the Go heap that hold no Go
// pointers, so a full collection costs the same with ten entries or ten
// million. Get appends the value to a caller's buffer and takes no lock
// (reads are validated by the shard's sequence number); neither Get nor
// Set allocates. Config.MaxBytes bounds the rings, the indexes and the
// admission sketch together, and pages are backed only once written, so
// memory grows with use up to the limit. Keys are compared in full, so
// colliding hashes never return another key's value.
//
// Cache shares its representation with cachebench's internal engine, the
// code its benchmarks measure as "shardcache" (`cachebench run --adapters
// shardcache`), and its methods call the engine's; the other names are
// aliases of the engine's. The design is documented in that package
// (internal/engine/shardcache in the repository).
package shardcache

import "github.com/cachebench/cachebench/internal/engine/shardcache"

// Config configures a Cache; only MaxBytes is required. Its fields:
// MaxBytes (the memory limit of entries and index together), MaxEntries
// (an optional cap on entries), Shards, MaxEntrySize (a hint), DefaultTTL,
// CleanupInterval, OnEvict (called outside the shard lock), Policy, Index
// (slot layout), HugeIndex, LockedReads, and Hash and Clock (for tests).
type Config = shardcache.Config

// Stats are a cache's counters and sizes (hits, misses, sets, evictions
// by reason, entries, bytes used, effective shard count and capacity),
// as returned by Cache.Stats.
type Stats = shardcache.Stats

// Policy selects what happens to the oldest entry when a shard is full.
type Policy = shardcache.Policy

// Eviction policies.
const (
	// WindowTinyLFU (the default) keeps new keys in a small FIFO window
	// (a tenth of each shard) in front of a main queue under CLOCK with a
	// 2-bit use count. A window entry that was read moves to the main
	// queue; one leaving unread stays only if a frequency sketch rates it
	// above the main queue's victim (with a bias adapted by hill climbing
	// on the shard's hit ratio); losers are remembered in a ghost of
	// hashes. A key read again soon after its first read hits, and
	// one-time keys do not push out keys used again.
	WindowTinyLFU = shardcache.WindowTinyLFU
	// TinyLFU is SecondChance with admission at the door: a new key that
	// would evict a used entry is stored only if it is estimated more
	// popular. With no window, a key read again soon after its first read
	// misses (the default before WindowTinyLFU).
	TinyLFU = shardcache.TinyLFU
	// SecondChance is CLOCK over the ring: an entry read since it was
	// written is moved to the head once instead of being evicted; every
	// new key is admitted.
	SecondChance = shardcache.SecondChance
	// FIFO evicts the oldest entry regardless of use.
	FIFO = shardcache.FIFO
	// S3FIFO is WindowTinyLFU without the sketch and the climber (Yang et
	// al., SOSP 2023): a window entry leaving unread is always evicted.
	S3FIFO = shardcache.S3FIFO
)

// IndexLayout selects the size of the index slots (Config.Index).
type IndexLayout = shardcache.IndexLayout

// Index layouts.
const (
	// InlineIndex (the default) has 32-byte slots that also hold an entry
	// whose key and value fit in InlineMax bytes: a hit on it is one cache
	// miss. About 43 bytes of index per entry.
	InlineIndex = shardcache.InlineIndex
	// CompactIndex has 8-byte slots (about 11 bytes per entry); every hit
	// reads the ring too. It suits entries too large to inline.
	CompactIndex = shardcache.CompactIndex
)

// InlineMax is the most key plus value bytes an InlineIndex slot holds.
const InlineMax = shardcache.InlineMax

// EvictReason says why an entry left the cache, for Config.OnEvict.
type EvictReason = shardcache.EvictReason

// Eviction reasons.
const (
	// ReasonExpired: the entry's TTL had passed.
	ReasonExpired = shardcache.ReasonExpired
	// ReasonNoSpace: the entry was dropped to make room for a new one.
	ReasonNoSpace = shardcache.ReasonNoSpace
	// ReasonDeleted: the entry was removed by Delete.
	ReasonDeleted = shardcache.ReasonDeleted
	// ReasonRejected: the TinyLFU policy did not admit a new entry (or
	// WindowTinyLFU did not keep a window entry).
	ReasonRejected = shardcache.ReasonRejected
)

// Limits.
const (
	// MaxKeySize is the largest key in bytes.
	MaxKeySize = shardcache.MaxKeySize
	// MinMaxBytes is the smallest accepted Config.MaxBytes.
	MinMaxBytes = shardcache.MinMaxBytes
)

// Errors returned (wrapped) by the cache; test them with errors.Is.
var (
	// ErrEntryTooLarge is returned by Set for a key over MaxKeySize bytes
	// or a key plus value over Cache.MaxEntrySize.
	ErrEntryTooLarge = shardcache.ErrEntryTooLarge
	// ErrClosed is returned by Set after Close.
	ErrClosed = shardcache.ErrClosed
	// ErrConfig is returned by New for an unusable Config.
	ErrConfig = shardcache.ErrConfig
)

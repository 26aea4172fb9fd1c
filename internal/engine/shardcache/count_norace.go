//go:build !race

package shardcache

// bump adds one to a hit, miss or collision counter with a plain
// increment: Get runs without the shard's lock, and an atomic add would
// be a locked instruction on every lookup. Increments racing on one
// shard's counter from several goroutines may be lost, so the counters
// are exact from one goroutine and may undercount under concurrent
// lookups (they are statistics; nothing depends on their exact value).
// Under the race detector the increments are atomic (count_race.go).
func bump(p *uint64) { *p++ }

// counter reads a counter written by bump.
func counter(p *uint64) uint64 { return *p }

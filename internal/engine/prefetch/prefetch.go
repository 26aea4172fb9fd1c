// Package prefetch asks the CPU to bring cache lines in without waiting
// for them. It is shared by the engines' batched lookups (shardcache and
// mmapstore GetBatch) and may be imported by any engine package.
package prefetch

// Package cachetest checks a cachebench adapter with the conformance suite
// every built-in adapter passes, in the manner of testing/fstest.TestFS:
// one call from a test.
//
//	func TestConformance(t *testing.T) { cachetest.TestAdapter(t, factory) }
//
// Run it with -race: several checks use the adapter from many goroutines.
package cachetest

import (
	"testing"

	"github.com/cachebench/cachebench"
	"github.com/cachebench/cachebench/internal/engine/conformance"
)

// TestAdapter runs every conformance check against adapters built by f,
// each as a subtest of t, and fails t where the adapter breaks its
// contract. A failure names the key and shows the expected and the
// actual bytes.
//
// The checks: round trips of keys and values (empty values, binary keys
// and values with NUL and 0xff bytes, a 70 KiB key and values of 70 KiB
// and 1 MiB; a key or an entry the cache cannot hold may be refused with
// an error, but what Set accepted must come back intact, never silently
// dropped); Get appending to a non-empty dst, leaving dst alone
// on a miss and keeping neither dst nor key; Set keeping neither of the
// caller's buffers; overwrites, also of a new key set twice before a
// Drain; concurrent Sets, concurrent Gets and Gets racing Sets (run the
// test with -race); the budget: given Options.Entries of 10,000, an
// in-memory cache must find at least 90% of 5,000 keys it was given
// (a file store all of them), and overfilled it must keep no more than
// its entry budget or its byte budget (Options.MemoryBytes); a Config
// (Configurer) stating how the budget is used; and the contracts of the
// optional interfaces the adapter implements: Freezer, Drainer, Deleter,
// Lener, Statser, FileBacked and BatchGetter.
//
// f.Kind says what is expected: cachebench.FileStore adapters must hold
// every entry, cachebench.InMemory ones may lose a few to eviction. A
// Network adapter's servers must be running.
func TestAdapter(t *testing.T, f cachebench.Factory) {
	t.Helper()
	conformance.Run(t, f, conformance.Options{})
}

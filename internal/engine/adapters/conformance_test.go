package adapters_test

import (
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/conformance"
	"github.com/cachebench/cachebench/internal/engine/netserver/servertest"
)

// TestConformance runs the conformance suite (package conformance, the
// one the public cachetest helper runs on external adapters) against
// every registered adapter (engine.All), so an adapter added to the
// package is covered without touching this file.

// exactInMemory lists the in-memory adapters that never drop an entry;
// file stores are always exact. Any other in-memory adapter is treated as
// a bounded cache that may legitimately lose a few entries and must keep
// to its budget.
var exactInMemory = map[string]bool{"map": true, "syncmap": true, "map-slow": true}

// staleAfterBackToBackSet lists adapters known to keep the first of two
// Sets of a new key issued before their write buffer is applied; for them
// that case is logged as a documented quirk instead of failing.
var staleAfterBackToBackSet = map[string]string{
	"ristretto": "the second Set of a not-yet-applied new key is rejected by the policy, which already holds the key",
}

func TestConformance(t *testing.T) {
	all := engine.All()
	if len(all) == 0 {
		t.Fatal("no adapter registered")
	}
	for _, f := range all {
		if f.Kind == engine.Probe {
			continue // stores nothing by design; the workloads package tests it
		}
		t.Run(f.Name, func(t *testing.T) {
			if f.Kind == engine.Network {
				servertest.Require(t, "memcached", "redis-server")
			}
			conformance.Run(t, f, conformance.Options{
				Exact:           exactInMemory[f.Name],
				StaleBackToBack: staleAfterBackToBackSet[f.Name],
			})
		})
	}
}

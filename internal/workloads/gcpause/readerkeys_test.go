package gcpause

import (
	"testing"

	"github.com/cachebench/cachebench/internal/workloads"
)

// TestReaderKeysAreWholeKeys: every pre-generated reader key is a whole
// "key_%d" key of an entry that was filled (a fixed-width slot read as the
// key would carry trailing bytes and miss on every Get).
func TestReaderKeysAreWholeKeys(t *testing.T) {
	cfg := ChildConfig{Params: Params{Entries: 5000, Seed: 3}}
	keys := readerKeySet(cfg)
	if len(keys) != 5000*readerSlot {
		t.Fatalf("%d bytes of keys", len(keys))
	}
	for j := 0; j < 5000; j++ {
		slot := keys[j*readerSlot:]
		k := slot[1 : 1+slot[0]]
		i, ok := workloads.ParseKey(k)
		if !ok || i >= 5000 {
			t.Fatalf("reader key %d = %q: not a filled key", j, k)
		}
	}
}

package workloads_test

import (
	"errors"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

func TestNullProbe(t *testing.T) {
	f, err := engine.Lookup(engine.ProbeName)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []engine.Kind{engine.InMemory, engine.FileStore} {
		for _, n := range engine.Names(g) {
			if n == engine.ProbeName {
				t.Fatalf("null is in the %s group", g)
			}
		}
	}
	a, err := f.New(engine.Options{Entries: 10, MemoryBytes: 1 << 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	codec := workloads.NewCodec(1)
	for _, i := range []uint64{0, 7, 999_999, 1<<30 - 1} {
		key := workloads.AppendKey(nil, i)
		if err := a.Set(key, []byte("ignored")); err != nil {
			t.Fatal(err)
		}
		v, ok, err := a.Get([]byte("prefix"), key)
		if err != nil || !ok || string(v[:6]) != "prefix" || !codec.CheckFull(v[6:], i, 0) {
			t.Fatalf("Get(%q) = %x, %v, %v", key, v, ok, err)
		}
	}
	// Any short key gets a value that checks for it; a key too long to be
	// a workload key is an error.
	for _, other := range []string{"key-1", "key_01", "x"} {
		v, ok, err := a.Get(nil, []byte(other))
		if err != nil || !ok || !codec.Check(v, []byte(other), 0) {
			t.Fatalf("Get(%q) = %x, %v, %v", other, v, ok, err)
		}
	}
	if _, ok, err := a.Get(nil, []byte("a key of twenty bytes")); ok || !errors.Is(err, workloads.ErrProbeKey) {
		t.Fatalf("Get(long key): ok=%v err=%v, want an error", ok, err)
	}
	buf := make([]byte, 0, 64)
	key := workloads.AppendKey(nil, 123456)
	if n := testing.AllocsPerRun(100, func() { buf, _, _ = a.Get(buf[:0], key) }); n != 0 {
		t.Fatalf("Get allocates %v times", n)
	}
}

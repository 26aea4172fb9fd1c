package engine_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
)

// testOnlyName is a test-only adapter registered by this test (the
// default binary has none), so that Resolve's handling of them is tested
// without the slowdown build tag.
const testOnlyName = "map-testonly"

func init() {
	engine.Register(engine.Factory{
		Name:     testOnlyName,
		Kind:     engine.InMemory,
		TestOnly: true,
		New: func(o engine.Options) (engine.Adapter, error) {
			f, err := engine.Lookup("map")
			if err != nil {
				return nil, err
			}
			return f.New(o)
		},
	})
}

func TestResolve(t *testing.T) {
	mem := engine.Names(engine.InMemory)
	file := engine.Names(engine.FileStore)
	if len(mem) == 0 || len(file) == 0 {
		t.Fatal("no adapters registered")
	}
	got, err := engine.Resolve("memory")
	if err != nil {
		t.Fatal(err)
	}
	names := engine.FactoryNames(got)
	if slices.Contains(names, testOnlyName) {
		t.Errorf("group memory includes the test-only %s: %v", testOnlyName, names)
	}
	// Adapters of a group of their own (Factory.Group) are in no kind group.
	grouped := 0
	for _, f := range engine.All() {
		if f.Group != "" && (f.Kind == engine.InMemory || f.Kind == engine.FileStore) {
			grouped++
			if slices.Contains(names, f.Name) {
				t.Errorf("group memory includes %s of group %s", f.Name, f.Group)
			}
		}
	}
	if grouped == 0 {
		t.Error("no adapter with a group of its own: the vectors group is missing")
	}
	inMemoryGrouped := 0
	for _, n := range mem {
		if f, _ := engine.Lookup(n); f.Group != "" {
			inMemoryGrouped++
		}
	}
	testOnly := 0
	for _, n := range mem {
		if f, _ := engine.Lookup(n); f.TestOnly {
			testOnly++
		}
	}
	if len(names) != len(mem)-testOnly-inMemoryGrouped {
		t.Errorf("memory = %v, want every in-memory adapter but the test-only one and the grouped ones (%v)", names, mem)
	}
	all, err := engine.Resolve(" map, all ," + testOnlyName)
	if err != nil {
		t.Fatal(err)
	}
	names = engine.FactoryNames(all)
	if names[0] != "map" || names[len(names)-1] != testOnlyName || len(names) != len(mem)+len(file)-grouped-testOnly+1 {
		t.Errorf("map,all,%s = %v: want map first, each once, the test-only adapter last when named", testOnlyName, names)
	}
	vec, err := engine.Resolve("vectors,map-text")
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.FactoryNames(vec); !slices.Equal(got, []string{"mmapstore-floats", "mmapstore-text", "map-floats", "map-text"}) {
		t.Errorf("vectors,map-text = %v, want the four float-vector stores, each once", got)
	}
	if !slices.Contains(engine.Groups(), "vectors") {
		t.Errorf("Groups() = %v, want vectors among them", engine.Groups())
	}
	netw, err := engine.Resolve("network")
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.FactoryNames(netw); !slices.Equal(got, []string{"memcached", "redis", "redis-rueidis"}) {
		t.Errorf("network = %v, want memcached, redis, redis-rueidis", got)
	}
	for _, n := range engine.FactoryNames(all) {
		if f, _ := engine.Lookup(n); f.Kind == engine.Network {
			t.Errorf("all includes the network adapter %s", n)
		}
	}
	if _, err := engine.Resolve("map,nosuch"); !errors.Is(err, engine.ErrUnknownAdapter) {
		t.Errorf("unknown name: err = %v, want ErrUnknownAdapter", err)
	}
	if _, err := engine.Resolve(" , "); err == nil {
		t.Error("empty list: no error")
	}
}

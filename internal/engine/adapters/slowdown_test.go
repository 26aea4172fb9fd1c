//go:build slowdown

package adapters

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

func newSlowForTest(t *testing.T) engine.Adapter {
	t.Helper()
	f, err := engine.Lookup("map-slow")
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.New(engine.Options{Entries: 10, MemoryBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestSlowMapIsTestOnly(t *testing.T) {
	f, err := engine.Lookup("map-slow")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.Description, "test only") {
		t.Fatalf("description %q must start with \"test only\" so groups leave it out", f.Description)
	}
}

func TestSlowMapInjectsAllocations(t *testing.T) {
	allocs := func() float64 {
		a := newSlowForTest(t)
		if err := a.Set([]byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, 0, 16)
		return testing.AllocsPerRun(1000, func() {
			var ok bool
			if dst, ok, _ = a.Get(dst[:0], []byte("k")); !ok {
				t.Fatal("k not found")
			}
		})
	}
	t.Setenv(envSlowdownAllocs, "0")
	base := allocs()
	t.Setenv(envSlowdownAllocs, "2")
	if got := allocs(); got != base+2 {
		t.Fatalf("allocs per Get: %v with 2 injected, %v without", got, base)
	}
}

func TestSlowMapSpinIterations(t *testing.T) {
	t.Setenv(envSlowdownNs, "0")
	if it := newSlowForTest(t).(engine.Configurer).Config()["slowdown_spin_iterations"]; it != "0" {
		t.Fatalf("no slowdown: %s iterations", it)
	}
	t.Setenv(envSlowdownNs, "500")
	a := newSlowForTest(t)
	if it := a.(engine.Configurer).Config()["slowdown_spin_iterations"]; it == "0" || it == "" {
		t.Fatalf("500 ns slowdown: %q iterations", it)
	}
	// Still a map.
	if err := a.Set([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := a.Get(nil, []byte("a")); err != nil || !ok || string(v) != "1" {
		t.Fatalf("Get a = %q, %v, %v", v, ok, err)
	}
}

// TestSlowMapExtraLookups: with CACHEBENCH_SLOWDOWN_PERCENT=25, about a
// quarter of the keys are picked: set in the second map too and looked
// up there again, and the values returned are still the first map's.
func TestSlowMapExtraLookups(t *testing.T) {
	t.Setenv(envSlowdownPercent, "25")
	a := newSlowForTest(t)
	s := a.(*slowMap)
	picked := 0
	var dst []byte
	for i := range 2000 {
		key, val := []byte(fmt.Sprintf("key_%d", i)), []byte(fmt.Sprintf("val_%d", i))
		if err := a.Set(key, val); err != nil {
			t.Fatal(err)
		}
		var ok bool
		var err error
		if dst, ok, err = a.Get(dst[:0], key); !ok || err != nil || string(dst) != string(val) {
			t.Fatalf("get %s: %q, %v, %v", key, dst, ok, err)
		}
		_, inTwin, _ := s.twin.Get(nil, key)
		if s.picked(key) {
			picked++
		}
		if inTwin != s.picked(key) {
			t.Fatalf("%s: picked %v, in the second map %v", key, s.picked(key), inTwin)
		}
	}
	if picked < 400 || picked > 600 {
		t.Fatalf("%d of 2000 keys picked at 25%%", picked)
	}
}

func TestSlowMapBadEnv(t *testing.T) {
	f, err := engine.Lookup("map-slow")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, val string }{
		{envSlowdownNs, "-1"}, {envSlowdownNs, "abc"}, {envSlowdownNs, "99999999999"}, {envSlowdownAllocs, "1e3"},
		{envSlowdownPercent, "101"}, {envSlowdownPercent, "-5"},
	} {
		t.Setenv(envSlowdownNs, "")
		t.Setenv(envSlowdownAllocs, "")
		t.Setenv(envSlowdownPercent, "")
		t.Setenv(c.env, c.val)
		if _, err := f.New(engine.Options{Entries: 10, MemoryBytes: 1 << 20}); err == nil || !strings.Contains(err.Error(), c.env) {
			t.Errorf("%s=%s: err %v, want one naming the variable", c.env, c.val, err)
		}
	}
}

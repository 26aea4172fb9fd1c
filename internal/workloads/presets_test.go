package workloads

import "testing"

func TestUMemPreset(t *testing.T) {
	p := Params{Keys: 1_000_000, Seed: 7, ValueSize: "", HotKeys: 0.2, HotAccess: 0.8, ZipfS: 1.1, ReadRatio: 0.9, Capacity: 0.1,
		LatencyEvery: 64, Explicit: func(string) bool { return false }}
	specs, err := Specs("get-or-set/umem", p)
	if err != nil {
		t.Fatal(err)
	}
	s := specs[0]
	if s.Name() != "get-or-set/umem" || s.Keys != 4096 || s.Ops != 4*4096 || s.Capacity != 0.2 ||
		s.ValueMin != minSizedValue || s.ValueMax != 1<<20 || s.Dist != HotCold || s.Seed != 7 || s.LatencyEvery != 1 {
		t.Errorf("umem defaults with no flag given: %+v", s)
	}
	// Flags the user gave win; ops follow keys in the preset's proportion.
	p.Keys, p.ValueSize = 256, "0-65536"
	p.Explicit = func(f string) bool { return f == "keys" || f == "value-size" || f == "latency-every" }
	specs, err = Specs("get-or-set/umem", p)
	if err != nil {
		t.Fatal(err)
	}
	s = specs[0]
	if s.Keys != 256 || s.Ops != 1024 || s.ValueMin != minSizedValue || s.ValueMax != 65536 || s.Capacity != 0.2 || s.LatencyEvery != 64 {
		t.Errorf("umem with --keys 256 --value-size 0-65536: %+v", s)
	}
	// Other workloads take every field, as before presets existed.
	specs, err = Specs("get-or-set/hotcold", p)
	if err != nil {
		t.Fatal(err)
	}
	if specs[0].Capacity != 0.1 || specs[0].Name() != "get-or-set/hotcold" || specs[0].LatencyEvery != 64 {
		t.Errorf("get-or-set/hotcold: %+v", specs[0])
	}
}

package workloads

// UMem is the preset get-or-set/umem: look-aside caching of large values
// under memory pressure, the shape of a published memcached benchmark
// (get; on a miss, set; value sizes uniform up to 1 MiB; 80% of accesses
// on 20% of the keys), scaled to fit a 2-core, 24 GB machine with the
// reference's proportions: about 2 GiB of distinct values and a memory
// budget of 20% of them (the reference gave 2 GiB over about 10 GiB).
const UMem = "umem"

// presets maps a preset's full name to its defaults. Flags the user sets
// explicitly override them (see Params.Explicit).
var presets = map[string]func() Spec{
	GetOrSet + "/" + UMem: func() Spec {
		return Spec{
			Scenario:  GetOrSet,
			Dist:      HotCold,
			Preset:    UMem,
			Keys:      4096,
			Ops:       4 * 4096,
			Seed:      1,
			HotKeys:   0.2,
			HotAccess: 0.8,
			ZipfS:     1.1,
			ReadRatio: 0.9,
			// The entry budget is 20% of the keys; the memory budget derived
			// from it (entries × mean entry) is then 20% of the distinct
			// value bytes.
			Capacity: 0.2,
			// Uniform in 0–1 MiB; the smallest value is the 12 bytes that
			// carry its key index and check.
			ValueMin: minSizedValue,
			ValueMax: 1 << 20,
			// Every request timed: a pair of clock reads (about 50 ns
			// on the 2-core VMs) is a quarter of a percent of a request
			// here.
			LatencyEvery: 1,
		}
	},
}

// Presets lists the preset workloads with a line of description each.
var Presets = map[string]string{
	GetOrSet + "/" + UMem: "get-or-set, values uniform in 0-1 MiB, 80% of accesses on 20% of 4,096 keys (~2 GiB of values), memory budget 20% of the values; reports bytes cached and server RSS against the limit",
}

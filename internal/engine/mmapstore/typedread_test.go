package mmapstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// The typed-read comparison (issue "mmapstore typed values"): a service
// reads a 32-element float vector and uses it (sums it), stored four
// ways:
//
//	typed      mmapstore, a []float64 value read in place (GetFloat64s)
//	text       mmapstore, the vector as text "v0,v1,…" parsed on each read
//	map-text   map[string]string of the same text, parsed on each read
//	map-floats map[string][]float64
//
// The text is parsed with strconv.ParseFloat over the bytes without
// copying them (unsafe.String), so parsing allocates nothing: the
// comparison charges text only for the parsing itself, not for garbage
// a careless reader would add. Every read's sum is checked against the
// value's formula (records.Synthetic's float64s: i + j/4), so a wrong
// value fails the run.

const typedDim = 32

// typedReadFixture holds the four stores over the same keys and the
// access order (keys laid out in that order, with their index, so the
// next key is a sequential read).
type typedReadFixture struct {
	typed, text *Store
	mapText     map[string]string
	mapFloats   map[string][]float64
	order       [][]byte
	index       []int32
	typedBytes  uint64 // file sizes
	textBytes   uint64
}

func typedVector(i int) []float64 {
	v := make([]float64, typedDim)
	for j := range v {
		v[j] = float64(i) + float64(j)/4
	}
	return v
}

// wantSum is the sum of typedVector(i), exact in float64.
func wantSum(i int32) float64 { return typedDim*float64(i) + typedDim*(typedDim-1)/8.0 }

func vectorText(v []float64) string {
	var b strings.Builder
	for j, f := range v {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return b.String()
}

func newTypedReadFixture(tb testing.TB, n int) *typedReadFixture {
	tb.Helper()
	dir := tb.TempDir()
	f := &typedReadFixture{mapText: make(map[string]string, n), mapFloats: make(map[string][]float64, n)}
	keys := make([][]byte, n)
	tb1, err := Create(filepath.Join(dir, "typed.cache"), BuildOptions{SizeHint: n, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb2, err := Create(filepath.Join(dir, "text.cache"), BuildOptions{SizeHint: n, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		keys[i] = fmt.Appendf(nil, "key_%d", i)
		v := typedVector(i)
		txt := vectorText(v)
		if err := tb1.AddValue(keys[i], Float64sValue(v)); err != nil {
			tb.Fatal(err)
		}
		if err := tb2.Add(keys[i], []byte(txt)); err != nil {
			tb.Fatal(err)
		}
		f.mapText[string(keys[i])] = txt
		f.mapFloats[string(keys[i])] = v
	}
	r1, err := tb1.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	r2, err := tb2.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	f.typedBytes, f.textBytes = r1.Header.FileSize, r2.Header.FileSize
	f.typed, f.text = mustOpen(tb, r1.Path), mustOpen(tb, r2.Path)
	perm := rand.New(rand.NewPCG(7, 7)).Perm(n)
	buf := make([]byte, 0, 12*n)
	for _, i := range perm {
		buf = append(buf, keys[i]...)
		f.index = append(f.index, int32(i))
	}
	for _, i := range perm {
		l := len(keys[i])
		f.order = append(f.order, buf[:l:l])
		buf = buf[l:]
	}
	return f
}

// sumText parses the comma-separated floats of b and sums them.
func sumText(b []byte) (float64, bool) {
	sum := 0.0
	for len(b) > 0 {
		j := 0
		for j < len(b) && b[j] != ',' {
			j++
		}
		x, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), j), 64)
		if err != nil {
			return 0, false
		}
		sum += x
		if j == len(b) {
			break
		}
		b = b[j+1:]
	}
	return sum, true
}

// typedReaders are the four ways to read key's vector and sum it.
func (f *typedReadFixture) readers() []struct {
	name string
	sum  func(key []byte) (float64, bool)
} {
	return []struct {
		name string
		sum  func(key []byte) (float64, bool)
	}{
		{"typed", func(k []byte) (float64, bool) {
			xs, ok, err := f.typed.GetFloat64s(k)
			if !ok || err != nil {
				return 0, false
			}
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s, true
		}},
		{"text", func(k []byte) (float64, bool) {
			v, ok := f.text.Get(k)
			if !ok {
				return 0, false
			}
			return sumText(v)
		}},
		{"map-text", func(k []byte) (float64, bool) {
			v, ok := f.mapText[string(k)]
			if !ok {
				return 0, false
			}
			return sumText(unsafe.Slice(unsafe.StringData(v), len(v)))
		}},
		{"map-floats", func(k []byte) (float64, bool) {
			xs, ok := f.mapFloats[string(k)]
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s, ok
		}},
	}
}

// pass reads every key once in the access order through sum and returns
// the wall time and heap allocations per read; a wrong sum fails.
func (f *typedReadFixture) pass(tb testing.TB, name string, sum func([]byte) (float64, bool)) (ns, allocs float64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	bad := 0
	t0 := time.Now()
	for i, k := range f.order {
		if s, ok := sum(k); !ok || s != wantSum(f.index[i]) {
			bad++
		}
	}
	el := time.Since(t0)
	runtime.ReadMemStats(&m1)
	if bad > 0 {
		tb.Fatalf("%s: %d of %d reads returned a wrong vector", name, bad, len(f.order))
	}
	n := float64(len(f.order))
	return float64(el.Nanoseconds()) / n, float64(m1.Mallocs-m0.Mallocs) / n
}

// BenchmarkTypedRead reads one vector per op through each of the four
// stores; with -count N the four sub-benchmarks run in turn N times
// (interleaved), so compare their ratios within a repetition.
func BenchmarkTypedRead(b *testing.B) {
	f := newTypedReadFixture(b, 100_000)
	for _, r := range f.readers() {
		b.Run(r.name, func(b *testing.B) {
			f.pass(b, r.name, r.sum) // warm: page cache and CPU caches as in steady use
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				j := i % len(f.order)
				if s, ok := r.sum(f.order[j]); !ok || s != wantSum(f.index[j]) {
					b.Fatalf("%s: wrong vector for %s", r.name, f.order[j])
				}
			}
		})
	}
}

// TestTypedReadTable is the command path of the comparison: with
// MMAPSTORE_TYPED_OUT set it builds the four stores (MMAPSTORE_TYPED_KEYS
// keys, default 100,000), runs MMAPSTORE_TYPED_ROUNDS rounds (default 10)
// of one pass over every key per store, the store order rotated each
// round, and writes a markdown table to the file named: median ns and
// allocations per read, and the median of each round's ratio to text
// (mmapstore text+parse) measured in that round. Without the variable it
// runs a short round as a test (every sum checked) and writes nothing.
func TestTypedReadTable(t *testing.T) {
	out := os.Getenv("MMAPSTORE_TYPED_OUT")
	keys, rounds := 2000, 1
	if out != "" {
		keys, rounds = envInt(t, "MMAPSTORE_TYPED_KEYS", 100_000), envInt(t, "MMAPSTORE_TYPED_ROUNDS", 10)
	}
	f := newTypedReadFixture(t, keys)
	rs := f.readers()
	ns := make([][]float64, len(rs))
	allocs := make([][]float64, len(rs))
	ratio := make([][]float64, len(rs))
	for _, r := range rs {
		f.pass(t, r.name, r.sum) // warm-up, not recorded
	}
	for round := range rounds {
		var this [4]float64
		for k := range rs {
			i := (k + round) % len(rs)
			n, a := f.pass(t, rs[i].name, rs[i].sum)
			this[i] = n
			ns[i], allocs[i] = append(ns[i], n), append(allocs[i], a)
		}
		for i := range rs {
			ratio[i] = append(ratio[i], this[i]/this[1])
		}
	}
	for i, r := range rs {
		if r.name != "text" && r.name != "map-text" && median(allocs[i]) > 0 && testing.CoverMode() == "" && !raceEnabled {
			t.Errorf("%s: %.2f allocations per read", r.name, median(allocs[i]))
		}
	}
	if out == "" {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| store | ns/read (median of %d) | range | allocs/read | ratio to text+parse (median of per-round ratios) |\n|---|---:|---:|---:|---:|\n", rounds)
	names := map[string]string{
		"typed": "mmapstore typed ([]float64 in place)", "text": "mmapstore text + strconv.ParseFloat",
		"map-text": "map[string]string + strconv.ParseFloat", "map-floats": "map[string][]float64",
	}
	for i, r := range rs {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f–%.1f | %.2f | %.3f |\n", names[r.name], median(ns[i]), slices.Min(ns[i]), slices.Max(ns[i]), median(allocs[i]), median(ratio[i]))
	}
	fmt.Fprintf(&b, "\n%d keys, a 32-element float64 vector each; file sizes: typed %d bytes (%.1f B/key), text %d bytes (%.1f B/key).\n",
		keys, f.typedBytes, float64(f.typedBytes)/float64(keys), f.textBytes, float64(f.textBytes)/float64(keys))
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

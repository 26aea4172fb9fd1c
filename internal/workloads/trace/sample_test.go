package trace

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// normalizedRequests returns the requests of the normalized trace.
func normalizedRequests(t *testing.T, n *Normalized) []Request {
	t.Helper()
	f, err := n.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := readAll(t, f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// keptIDs is what a sample at limit keeps of ids: the requests of the
// objects whose hash is at or below it, in order.
func keptIDs(ids []uint64, seed, limit uint64) []uint64 {
	var out []uint64
	for _, id := range ids {
		if KeyHash(id, seed) <= limit {
			out = append(out, id)
		}
	}
	return out
}

// sameStream fails unless the normalized requests are exactly want, up to
// the renumbering of IDs in order of first request.
func sameStream(t *testing.T, got []Request, want []uint64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d requests kept, want %d", len(got), len(want))
	}
	dense := map[uint64]uint64{}
	for i, id := range want {
		d, ok := dense[id]
		if !ok {
			d = uint64(len(dense))
			dense[id] = d
		}
		if got[i].ID != d {
			t.Fatalf("request %d: id %d, want dense id %d (object %d)", i, got[i].ID, d, id)
		}
	}
}

func TestSampleKeptFractionConvergesToRate(t *testing.T) {
	const objects = 200_000
	ids := make([]uint64, 0, 2*objects)
	for i := range uint64(objects) {
		ids = append(ids, i*7919, i*7919) // two requests per object
	}
	for _, rate := range []float64{0.5, 0.1, 0.01} {
		for _, seed := range []uint64{1, 2} {
			n, s, err := NormalizeSampled(&sliceReader{ids: ids}, t.TempDir(), "ids", Sampling{Rate: rate, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			// Binomial(objects, rate): five standard deviations.
			want := rate * objects
			if d := math.Abs(float64(n.Distinct) - want); d > 5*math.Sqrt(want*(1-rate)) {
				t.Errorf("rate %g seed %d: kept %d objects, want about %.0f", rate, seed, n.Distinct, want)
			}
			if n.Requests != 2*int64(n.Distinct) || s.InputRequests != int64(len(ids)) || s.FinalRate != rate {
				t.Errorf("rate %g: %d requests of %d objects, read %d, final rate %g", rate, n.Requests, n.Distinct, s.InputRequests, s.FinalRate)
			}
			sameStream(t, normalizedRequests(t, n), keptIDs(ids, seed, limitOf(rate)))
			n.Close()
		}
	}
}

func TestSampleSeedsDrawOtherObjects(t *testing.T) {
	same := 0
	for id := range uint64(10_000) {
		a, b := KeyHash(id, 1) <= limitOf(0.1), KeyHash(id, 2) <= limitOf(0.1)
		if a && b {
			same++
		}
	}
	// Independent draws at 10% share about 1% of the objects.
	if same < 50 || same > 150 {
		t.Errorf("seeds 1 and 2 both kept %d of 10,000 objects at 10%%, want about 100", same)
	}
}

func TestSampleRateOneKeepsEverything(t *testing.T) {
	ids := []uint64{5, 3, 5, 9, 3, 3, math.MaxUint64, 0}
	n, s, err := NormalizeSampled(&sliceReader{ids: ids}, t.TempDir(), "ids", Sampling{Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if s.FinalRate != 1 {
		t.Errorf("final rate %g", s.FinalRate)
	}
	sameStream(t, normalizedRequests(t, n), ids)
}

func TestSampleFixedSizeKeepsAtMostN(t *testing.T) {
	ids := make([]uint64, 0, 60_000)
	for i := range uint64(60_000) {
		ids = append(ids, (i*i)%20_011) // 20,011 objects, reused irregularly
	}
	for _, c := range []struct {
		max  int
		rate float64
	}{{500, 0}, {500, 0.2}, {5000, 0.01}, {100_000, 0}} {
		n, s, err := NormalizeSampled(&sliceReader{ids: ids}, t.TempDir(), "ids", Sampling{Rate: c.rate, Max: c.max, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[uint64]bool{}
		for _, id := range ids {
			distinct[id] = true
		}
		start := c.rate
		if start == 0 {
			start = 1
		}
		wantObjects := min(c.max, len(keptSet(distinct, 3, limitOf(start))))
		if n.Distinct != wantObjects {
			t.Errorf("max %d from rate %g: kept %d objects, want %d", c.max, c.rate, n.Distinct, wantObjects)
		}
		if s.FinalRate > start || (n.Distinct < c.max) != (s.FinalRate == start) {
			t.Errorf("max %d from rate %g: final rate %g with %d objects", c.max, c.rate, s.FinalRate, n.Distinct)
		}
		// The objects kept are those of the smallest hashes, with every
		// one of their requests.
		sameStream(t, normalizedRequests(t, n), keptIDs(ids, 3, s.Limit))
		n.Close()
	}
}

func keptSet(ids map[uint64]bool, seed, limit uint64) map[uint64]bool {
	out := map[uint64]bool{}
	for id := range ids {
		if KeyHash(id, seed) <= limit {
			out[id] = true
		}
	}
	return out
}

func TestSampleEmptySampleSaysSo(t *testing.T) {
	_, _, err := NormalizeSampled(&sliceReader{ids: []uint64{1, 2, 3}}, t.TempDir(), "ids", Sampling{Rate: 1e-9})
	if !errors.Is(err, ErrEmpty) {
		t.Fatalf("err %v, want ErrEmpty", err)
	}
	for _, bad := range []Sampling{{Rate: -0.1}, {Rate: 1.5}, {Rate: math.NaN()}, {Max: -1}} {
		if _, _, err := NormalizeSampled(&sliceReader{ids: []uint64{1}}, t.TempDir(), "ids", bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSampleLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	n, _, err := NormalizeSampled(&sliceReader{ids: []uint64{1, 2, 3, 1}}, dir, "ids", Sampling{Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	n.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v in %s", ents, dir)
	}
}

func TestGenReaderStreamsWhatGenerateWrites(t *testing.T) {
	c := GenConfig{Kind: "web", Requests: 5000, Keys: 300, Alpha: 0.9, Seed: 4, SizeMin: 10, SizeMax: 900}
	path := filepath.Join(t.TempDir(), "w.oracleGeneral")
	if err := Generate(context.Background(), c, path); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Oracle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := NewGenReader(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var a, b Request
	for i := 0; ; i++ {
		ea, eb := f.Next(&a), g.Next(&b)
		if errors.Is(ea, io.EOF) && errors.Is(eb, io.EOF) {
			if i != 5000 {
				t.Fatalf("%d requests", i)
			}
			return
		}
		if ea != nil || eb != nil {
			t.Fatalf("request %d: %v / %v", i, ea, eb)
		}
		if a.ID != b.ID || a.Size != b.Size || a.Time != b.Time || b.Next != NoNext {
			t.Fatalf("request %d: file %+v, stream %+v", i, a, b)
		}
	}
}

func TestGenReaderStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g, err := NewGenReader(ctx, GenConfig{Kind: "zipf", Requests: 1 << 40, Keys: 10, Alpha: 1, SizeMin: 1, SizeMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	var q Request
	for i := 0; i < 2*checkEvery; i++ {
		if err := g.Next(&q); err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			return
		}
	}
	t.Fatal("a cancelled stream went on")
}

// FuzzSample checks, for any stream, rate and size, that the sample keeps
// exactly the requests of the objects at or below its final limit, in
// order, and never more than Max objects.
func FuzzSample(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x01\x02\x09\x09\x09"), uint16(30000), uint8(2), uint64(1))
	f.Add([]byte{}, uint16(65535), uint8(0), uint64(7))
	f.Add([]byte("abcdefghabcdefgh12345678"), uint16(100), uint8(1), uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, rate16 uint16, max8 uint8, seed uint64) {
		var ids []uint64
		for len(data) >= 2 {
			ids = append(ids, uint64(binary.LittleEndian.Uint16(data))%64)
			data = data[2:]
		}
		s := Sampling{Rate: float64(rate16) / 65535, Max: int(max8 % 16), Seed: seed}
		n, got, err := NormalizeSampled(&sliceReader{ids: ids}, t.TempDir(), "fuzz", s)
		want := keptIDs(ids, seed, got.Limit)
		if len(want) == 0 {
			if !errors.Is(err, ErrEmpty) {
				t.Fatalf("empty sample: err %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		if s.Max > 0 && n.Distinct > s.Max {
			t.Fatalf("%d objects kept, max %d", n.Distinct, s.Max)
		}
		if got.InputRequests != int64(len(ids)) {
			t.Fatalf("read %d of %d", got.InputRequests, len(ids))
		}
		sameStream(t, normalizedRequests(t, n), want)
	})
}

// TestZipfBucketsFindTheSameRank: the bucketed search gives the rank a
// search of the whole table gives, so a seed draws the trace it drew
// before the buckets.
func TestZipfBucketsFindTheSameRank(t *testing.T) {
	for _, n := range []int{2, 3, 1000, 5000, 3 << 18} {
		for _, alpha := range []float64{0.6, 1, 2.5} {
			z, err := newZipf(context.Background(), n, alpha)
			if err != nil {
				t.Fatal(err)
			}
			us := []float64{0, math.Nextafter(1, 0), 0.5, 1 / z.buckets, math.Nextafter(1/z.buckets, 0)}
			for i := range 20000 {
				us = append(us, float64(i)/20000, unitOf(uint64(i)))
			}
			for _, c := range z.cdf[:min(len(z.cdf), 500)] {
				us = append(us, c, math.Nextafter(c, 0), math.Nextafter(c, 2))
			}
			for _, u := range us {
				if u < 0 || u >= 1 {
					continue
				}
				want := min(sort.SearchFloat64s(z.cdf, u), n-1)
				if got := z.rank(u); got != want {
					t.Fatalf("n %d alpha %g u %v: rank %d, want %d", n, alpha, u, got, want)
				}
			}
		}
	}
}

// unitOf spreads i over [0, 1).
func unitOf(i uint64) float64 { return float64(KeyHash(i, 0)>>11) / (1 << 53) }

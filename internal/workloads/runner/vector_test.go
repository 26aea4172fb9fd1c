package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// testVectors is a float-vector store (engine.Float64sStore) over a map;
// wrongEvery makes one read in wrongEvery return a damaged vector (of the
// kind named by damage), dropEvery forgets one key in dropEvery at Set,
// and failEvery makes one read in failEvery an error.
type testVectors struct {
	mu                               sync.Mutex
	m                                map[string][]float64
	reads                            int
	sets                             int
	wrongEvery, dropEvery, failEvery int
	damage                           string
}

func (t *testVectors) Name() string                          { return "test-vectors" }
func (t *testVectors) Set(k, v []byte) error                 { return errors.ErrUnsupported }
func (t *testVectors) Get(d, k []byte) ([]byte, bool, error) { return d, false, errors.ErrUnsupported }
func (t *testVectors) Close() error                          { return nil }

func (t *testVectors) SetFloat64s(k []byte, xs []float64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sets++
	if t.dropEvery > 0 && t.sets%t.dropEvery == 0 {
		return nil
	}
	t.m[string(k)] = slices.Clone(xs)
	return nil
}

func (t *testVectors) GetFloat64s(dst []float64, k []byte) ([]float64, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reads++
	xs, ok := t.m[string(k)]
	if !ok {
		return dst[:0], false, nil
	}
	if t.failEvery > 0 && t.reads%t.failEvery == 0 {
		return dst[:0], true, errors.New("disk on fire")
	}
	if t.wrongEvery > 0 && t.reads%t.wrongEvery == 0 {
		v := append(dst[:0], xs...)
		switch t.damage {
		case "swap-last": // the sum stays right, the last element does not
			v[0], v[len(v)-1] = v[len(v)-1], v[0]
		case "truncate":
			v = v[:len(v)-1]
		default: // one element off by 1/4: the sum is wrong
			v[3] += 0.25
		}
		return v, true, nil
	}
	return xs, true, nil
}

func init() {
	for name, mk := range map[string]func() *testVectors{
		"test-vectors":       func() *testVectors { return &testVectors{} },
		"test-vectors-wrong": func() *testVectors { return &testVectors{wrongEvery: 50} },
		"test-vectors-swap":  func() *testVectors { return &testVectors{wrongEvery: 50, damage: "swap-last"} },
		"test-vectors-short": func() *testVectors { return &testVectors{wrongEvery: 50, damage: "truncate"} },
		"test-vectors-lossy": func() *testVectors { return &testVectors{dropEvery: 10} },
		"test-vectors-fail":  func() *testVectors { return &testVectors{failEvery: 100} },
	} {
		engine.Register(engine.Factory{Name: name, Kind: engine.InMemory, Description: "test only",
			New: func(engine.Options) (engine.Adapter, error) {
				v := mk()
				v.m = map[string][]float64{}
				return v, nil
			}})
	}
}

func TestReadVectorVerifiesEveryRead(t *testing.T) {
	adapters := []string{"test-vectors", "test-vectors-wrong", "test-vectors-swap", "test-vectors-short",
		"test-vectors-lossy", "test-vectors-fail", "test-map"}
	cfg := baseConfig(t, adapters, workloads.ReadVector)
	cfg.Procs = []int{1}
	cfg.Floor = true
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	const keys = 5000
	for _, name := range []string{engine.ProbeName, "test-vectors"} {
		m := find(t, res, name, workloads.ReadVector, report.PhaseReadVector, 1)
		if len(m.Samples) != 3 || m.Flags != nil || m.Reference != workloads.ReadVectorReference {
			t.Fatalf("%s: %d samples, flags %v, reference %q", name, len(m.Samples), m.Flags, m.Reference)
		}
		for _, s := range m.Samples {
			if s.Ops != keys || s.Hits != keys || s.Wrong != 0 || s.Misses != 0 || s.Errors != 0 || s.NsPerOp <= 0 || s.Latency.Samples == 0 {
				t.Fatalf("%s: sample %+v", name, s)
			}
		}
		ins := find(t, res, name, workloads.ReadVector, report.PhaseInsert, 1)
		if ins.Samples[0].Ops != keys || ins.Samples[0].Errors != 0 {
			t.Fatalf("%s: insert %+v", name, ins.Samples[0])
		}
	}
	// One read in 50 damaged: each is counted as a wrong value and flags
	// the adapter, whether the sum, the last element or the length is off.
	for _, name := range []string{"test-vectors-wrong", "test-vectors-swap", "test-vectors-short"} {
		m := find(t, res, name, workloads.ReadVector, report.PhaseReadVector, 1)
		var wrong int64
		for _, s := range m.Samples {
			wrong += s.Wrong
		}
		if f, ok := m.Flag(report.FlagWrongValues); !ok || wrong == 0 || f.Count != wrong {
			t.Errorf("%s: %d wrong values, flags %v", name, wrong, m.Flags)
		}
	}
	// A key dropped at Set is a lost entry; a failed read an error.
	if m := find(t, res, "test-vectors-lossy", workloads.ReadVector, report.PhaseReadVector, 1); !hasFlag(m, report.FlagLostEntries) || m.Samples[0].Misses != keys/10 {
		t.Errorf("lossy: misses %d, flags %v", m.Samples[0].Misses, m.Flags)
	}
	// A read that fails fails the adapter's run: its figures would time
	// only the reads that answered.
	if len(res.Errors) != 1 || res.Errors[0].Adapter != "test-vectors-fail" || res.Errors[0].Code != report.FailOps ||
		!strings.Contains(res.Errors[0].Message, "disk on fire") {
		t.Errorf("errors %v, want test-vectors-fail's failed reads", res.Errors)
	}
	// An adapter that holds no vectors is skipped, not failed.
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "test-map") {
		t.Errorf("skipped %v", res.Skipped)
	}
}

func hasFlag(m report.Measurement, name report.FlagName) bool {
	_, ok := m.Flag(name)
	return ok
}

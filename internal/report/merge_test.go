package report

import (
	"strings"
	"testing"
	"time"
)

func TestMergeAppendsSamplesInOrder(t *testing.T) {
	a, b := runFixture("cpu"), runFixture("cpu")
	a.Duration, b.Duration = Duration(2*time.Second), Duration(3*time.Second)
	for i := range b.Measurements {
		for j := range b.Measurements[i].Samples {
			b.Measurements[i].Samples[j].NsPerOp += 1e6 // tell b's samples apart
		}
	}
	b.Measurements[0].Flags = []Flag{{FlagLossy, -1}}
	b.Errors = []Failure{{Code: FailNew, Adapter: "otter", Message: "boom"}}
	before := len(a.Measurements[0].Samples)

	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != len(a.Measurements) {
		t.Fatalf("%d measurements, want %d", len(m.Measurements), len(a.Measurements))
	}
	for i, got := range m.Measurements {
		na, nb := len(a.Measurements[i].Samples), len(b.Measurements[i].Samples)
		if len(got.Samples) != na+nb {
			t.Fatalf("%s %s: %d samples, want %d", got.Adapter, got.Phase, len(got.Samples), na+nb)
		}
		for j, s := range got.Samples {
			want := a.Measurements[i].Samples
			k := j
			if j >= na {
				want, k = b.Measurements[i].Samples, j-na
			}
			if s.NsPerOp != want[k].NsPerOp {
				t.Fatalf("%s %s sample %d: %v ns/op, want %v", got.Adapter, got.Phase, j, s.NsPerOp, want[k].NsPerOp)
			}
		}
	}
	if len(a.Measurements[0].Samples) != before {
		t.Error("Merge changed its first input")
	}
	if _, ok := m.Measurements[0].Flag(FlagLossy); !ok {
		t.Errorf("flags not joined: %v", m.Measurements[0].Flags)
	}
	if len(m.Errors) != len(a.Errors)+1 || m.Config["merged_runs"] != "2" || time.Duration(m.Duration) != 5*time.Second {
		t.Errorf("errors %v, merged_runs %q, duration %v", m.Errors, m.Config["merged_runs"], time.Duration(m.Duration))
	}
}

func TestMergeRefusesDifferentSuites(t *testing.T) {
	other := runFixture("another cpu")
	fewer := runFixture("cpu")
	fewer.Measurements = fewer.Measurements[1:]
	renamed := runFixture("cpu")
	renamed.Measurements[0].Adapter = "ristretto"
	for _, tc := range []struct {
		name string
		in   []*Result
		want string
	}{
		{"nothing", nil, "no results"},
		{"gc-pause", []*Result{gcFixture("cpu")}, "only"},
		{"cpu", []*Result{runFixture("cpu"), other}, "measured on"},
		{"count", []*Result{runFixture("cpu"), fewer}, "measurements"},
		{"adapter", []*Result{runFixture("cpu"), renamed}, "ristretto"},
	} {
		if _, err := Merge(tc.in...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

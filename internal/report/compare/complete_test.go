package compare

import (
	"errors"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

func TestCheckComparable(t *testing.T) {
	opt := Options{Absolute: []string{"null"}}
	floorOnly := &Report{Options: opt, Rows: []Row{{Key: Key{Adapter: "null"}}, {Key: Key{Adapter: "null"}}}}
	if err := floorOnly.CheckComparable(); !errors.Is(err, ErrIncomplete) {
		t.Errorf("floor only: %v", err)
	}
	withCache := &Report{Options: opt, Rows: []Row{{Key: Key{Adapter: "null"}}, {Key: Key{Adapter: "map"}}}}
	if err := withCache.CheckComparable(); err != nil {
		t.Errorf("with a cache: %v", err)
	}
}

func TestCheckComplete(t *testing.T) {
	run := func(adapters ...string) *report.Result {
		r := &report.Result{Kind: report.KindRun}
		for _, a := range adapters {
			r.Measurements = append(r.Measurements, report.Measurement{Adapter: a})
		}
		return r
	}
	opt := Options{Absolute: []string{"null"}}
	if err := CheckComplete(run("null", "map"), run("map", "lru"), opt); err != nil {
		t.Errorf("NEW a superset, floor dropped: %v", err)
	}
	failed := run("null")
	failed.Errors = []report.Failure{{Adapter: "map", Code: report.FailOps}}
	if err := CheckComplete(run("null", "map"), failed, opt); err != nil {
		t.Errorf("map failed in NEW (a regression, not a gap): %v", err)
	}
	if err := CheckComplete(run("map", "lru"), run("map"), opt); !errors.Is(err, ErrIncomplete) {
		t.Errorf("lru missing: %v", err)
	}
	in := run("map")
	in.Interrupted = true
	if err := CheckComplete(run("map"), in, opt); !errors.Is(err, ErrIncomplete) {
		t.Errorf("interrupted NEW: %v", err)
	}
}

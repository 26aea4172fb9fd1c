package hitratio

import (
	"fmt"
	"math"

	"github.com/cachebench/cachebench/internal/report"
)

// Check refuses a result holding a figure no replay can produce: a hit
// ratio outside [0, 1] (or not a number), a capacity fraction of 0 or
// less (a log-scale chart cannot place it), hits above requests, a
// negative count. Results are read back with --from, so a hand-edited or
// corrupted file is refused here rather than drawn or ranked. The error
// is a *report.BadValue naming the field.
func (r *Result) Check() error {
	for i, t := range r.Traces {
		if msg := ratioMsg(t.Infinite); msg != "" {
			return &report.BadValue{Path: []any{"traces", i, "infinite_hit_ratio"}, Msg: msg}
		}
		for j, row := range t.Rows {
			at := func(field, msg string) error {
				return &report.BadValue{Path: []any{"traces", i, "rows", j, field}, Msg: msg}
			}
			for _, f := range []struct {
				name string
				v    float64
			}{{"hit_ratio", row.HitRatio}, {"byte_hit_ratio", row.ByteHitRatio}} {
				if msg := ratioMsg(f.v); msg != "" {
					return at(f.name, msg)
				}
			}
			if !(row.Fraction > 0) || math.IsInf(row.Fraction, 0) {
				return at("fraction", fmt.Sprintf("capacity fraction %v: must be a finite number above 0", row.Fraction))
			}
			for _, f := range []struct {
				name string
				v    int64
			}{{"requests", row.Requests}, {"hits", row.Hits}, {"request_bytes", row.ReqBytes}, {"hit_bytes", row.HitBytes}, {"entries", int64(row.Entries)}, {"bytes", row.Bytes}} {
				if f.v < 0 {
					return at(f.name, fmt.Sprintf("%d is below 0", f.v))
				}
			}
			if row.Hits > row.Requests {
				return at("hits", fmt.Sprintf("%d hits of %d requests", row.Hits, row.Requests))
			}
		}
	}
	return nil
}

// ratioMsg says why v is not a ratio in [0, 1], or "".
func ratioMsg(v float64) string {
	if !(v >= 0 && v <= 1) {
		return fmt.Sprintf("%v is not a ratio between 0 and 1", v)
	}
	return ""
}

package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Every figure a result holds is checked when the result is read: a
// figure no measurement can produce (NaN, an infinity, a negative time or
// count, a hit ratio outside [0, 1], a repetition of zero operations, an
// unknown kind) is refused with where it stands, never carried into a
// verdict. NaN once looped the Mann-Whitney test until memory ran out,
// and a negative ns/op read as a 100% improvement.

// BadValue is a figure of a result that no measurement can produce.
// Path names it in the JSON document ("measurements", 3, "samples", 1,
// "ns_per_op"); readers turn it into a file:line.
type BadValue struct {
	Path []any
	Msg  string
}

func (e *BadValue) Error() string { return pathString(e.Path) + ": " + e.Msg }

func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}

// checkFigure refuses a value that is not finite or lies below lo.
func checkFigure(v, lo float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprintf("%v is not a finite number", v)
	case v < lo:
		return fmt.Sprintf("%.6g is below %v", v, lo)
	}
	return ""
}

// checkRatio refuses a hit ratio that is neither -1 (none) nor in [0, 1].
func checkRatio(v float64) string {
	if v == -1 {
		return ""
	}
	if msg := checkFigure(v, 0); msg != "" {
		return msg
	}
	if v > 1 {
		return fmt.Sprintf("%v is above 1", v)
	}
	return ""
}

// CheckSample reports the first figure of s that no repetition can
// produce, as a field name and a message, or "", "".
func CheckSample(s Sample) (field, msg string) {
	if s.Ops <= 0 {
		return "ops", fmt.Sprintf("%d operations: a repetition does at least one", s.Ops)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ns_per_op", s.NsPerOp}, {"ops_per_sec", s.OpsPerSec}, {"allocs_per_op", s.AllocsPerOp}, {"bytes_per_op", s.BytesPerOp},
		{"latency.p50_ns", s.Latency.P50}, {"latency.p99_ns", s.Latency.P99}, {"latency.p999_ns", s.Latency.P999}, {"latency.max_ns", s.Latency.Max},
		{"new_ns", s.NewNs},
	} {
		if msg := checkFigure(f.v, 0); msg != "" {
			return f.name, msg
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"hit_ratio", s.HitRatio}, {"hot_hit_ratio", s.HotHitRatio}, {"cold_hit_ratio", s.ColdHitRatio}} {
		if msg := checkRatio(f.v); msg != "" {
			return f.name, msg
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"hits", s.Hits}, {"misses", s.Misses}, {"wrong", s.Wrong}, {"errors", s.Errors}, {"latency.samples", s.Latency.Samples}} {
		if f.v < 0 {
			return f.name, fmt.Sprintf("%d is below 0", f.v)
		}
	}
	return "", ""
}

// Check refuses a result holding a figure that no measurement can
// produce, or of a kind no command writes; the error is a *BadValue.
func (r *Result) Check() error {
	switch r.Kind {
	case "", KindRun, KindGCPause:
	default:
		return &BadValue{Path: []any{"kind"}, Msg: fmt.Sprintf("unknown kind %q (want %q or %q)", r.Kind, KindRun, KindGCPause)}
	}
	for i, m := range r.Measurements {
		if m.Procs < 0 || m.Keys < 0 {
			return &BadValue{Path: []any{"measurements", i}, Msg: fmt.Sprintf("procs %d, keys %d: must be >= 0", m.Procs, m.Keys)}
		}
		for j, s := range m.Samples {
			if field, msg := CheckSample(s); field != "" {
				path := []any{"measurements", i, "samples", j}
				for _, f := range strings.Split(field, ".") {
					path = append(path, f)
				}
				return &BadValue{Path: path, Msg: msg}
			}
		}
	}
	for i, p := range r.GCPause {
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"fill_seconds", p.FillSeconds}, {"pause_max_seconds", p.PauseMaxSeconds}, {"pause_total_seconds", p.PauseTotalSeconds},
			{"forced_gc_seconds", p.ForcedGCSeconds}, {"fill_gc_cpu_seconds", p.FillGCCPUSeconds}, {"forced_gc_cpu_seconds", p.ForcedGCCPUSecond},
			{"rss_bytes_per_entry", p.RSSBytesPerEntry},
		} {
			if msg := checkFigure(f.v, 0); msg != "" {
				return &BadValue{Path: []any{"gc_pause", i, f.name}, Msg: msg}
			}
		}
		if p.Entries < 0 || p.Verified < 0 || p.Missing < 0 || p.Wrong < 0 {
			return &BadValue{Path: []any{"gc_pause", i}, Msg: "a negative count (entries, verified, missing or wrong)"}
		}
	}
	return nil
}

// jsonLine returns the 1-based line of byte offset off in data.
func jsonLine(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// lineOfPath returns the line of data on which the value at path (object
// keys and array indexes) starts, or 0 when it cannot be found.
func lineOfPath(data []byte, path []any) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	line := 0
	var walk func(depth int) bool // reports whether path[depth:] was found
	walk = func(depth int) bool {
		if depth == len(path) {
			// The value starts at the next token: skip the spaces and the
			// separator after the previous one.
			off := dec.InputOffset()
			for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
				off++
			}
			line = jsonLine(data, off)
			return true
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return false
		}
		switch want := path[depth].(type) {
		case string:
			if d != '{' {
				return false
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				if k == want {
					return walk(depth + 1)
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return false
				}
			}
		case int:
			if d != '[' {
				return false
			}
			for i := 0; dec.More(); i++ {
				if i == want {
					return walk(depth + 1)
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return false
				}
			}
		}
		return false
	}
	walk(0)
	return line
}

// DecodeOne decodes the one JSON document data holds into v, refusing a
// second document or anything but white space after the first (a file
// appended to with >> holds two results, of which only the first would
// be read). Errors carry name:line.
func DecodeOne(data []byte, name string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("%s:%d: decode json: %w", name, jsonLine(data, syn.Offset), err)
		case errors.As(err, &typ):
			return fmt.Errorf("%s:%d: decode json: %w", name, jsonLine(data, typ.Offset), err)
		}
		return fmt.Errorf("%s: decode json: %w", name, err)
	}
	off := dec.InputOffset()
	if rest := bytes.TrimLeft(data[off:], " \t\r\n"); len(rest) > 0 {
		line := jsonLine(data, int64(len(data)-len(rest)))
		what := "trailing data after the result"
		if rest[0] == '{' {
			what = "a second JSON document (two results in one file, as >> appends them)"
		}
		return fmt.Errorf("%s:%d: %s: a results file holds exactly one result", name, line, what)
	}
	return nil
}

// Locate turns a *BadValue found in the JSON document data, the contents
// of the file name, into an error that starts with name:line; any other
// error comes back as it is.
func Locate(err error, data []byte, name string) error {
	var bad *BadValue
	if !errors.As(err, &bad) {
		return err
	}
	if line := lineOfPath(data, bad.Path); line > 0 {
		return fmt.Errorf("%s:%d: %w", name, line, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

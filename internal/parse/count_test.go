package parse

import (
	"strconv"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1": 1, "1000000": 1_000_000, "1_000_000": 1_000_000, " 42 ": 42,
		"1K": 1000, "1k": 1000, "1M": 1_000_000, "20M": 20_000_000, "2.5M": 2_500_000, "1G": 1_000_000_000,
		"1e6": 1_000_000, "1E6": 1_000_000, "2.5e3": 2500, "1.5K": 1500, "0.5k": 500, "3T": 3_000_000_000_000,
	}
	for in, want := range good {
		got, err := Count(in)
		if err != nil || got != want {
			t.Errorf("Count(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"": "no number", "M": "no number", "-1": "negative", "-1M": "negative", "1.5": "not a whole number",
		"1e-3": "not a whole number", "1.0001K": "not a whole number", "abc": "not a number", "1MiB": "not a number",
		"1KB": "not a number", "_1": "not a number", "1__0": "not a number", "1_0.5": "not a number",
		"0x10": "not a number", "NaN": "not a number", "inf": "not a number", "1e300": "above",
		"9999999T": "above", "99999999999T": "above", "+5": "not a number",
	}
	for in, want := range bad {
		_, err := Count(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Count(%q) error %v; want one saying %q", in, err, want)
		}
	}
}

func TestCountValue(t *testing.T) {
	var n int
	v := NewCountValue(&n, 7)
	if n != 7 || v.String() != "7" || v.Type() != "count" {
		t.Fatalf("default: n=%d String=%q Type=%q", n, v.String(), v.Type())
	}
	if err := v.Set("1M"); err != nil || n != 1_000_000 {
		t.Fatalf("Set(1M): n=%d err=%v", n, err)
	}
	if err := v.Set("x"); err == nil || n != 1_000_000 {
		t.Fatalf("Set(x): n=%d err=%v; want an error and n kept", n, err)
	}
}

// FuzzCount checks that Count never panics, accepts only non-negative
// counts up to MaxCount, and reads its own digits back.
func FuzzCount(f *testing.F) {
	for _, s := range []string{"1M", "1e6", "1_000", "2.5K", "-1", "", "1e400", "0.1k", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Count(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "count ") {
				t.Fatalf("Count(%q): error %q does not name the count", s, err)
			}
			return
		}
		if n < 0 || n > MaxCount {
			t.Fatalf("Count(%q) = %d, outside 0..%d", s, n, int64(MaxCount))
		}
		var back int
		if err := NewCountValue(&back, 0).Set(strconv.FormatInt(n, 10)); err != nil || int64(back) != n {
			t.Fatalf("Count(%q) = %d does not read back: %d, %v", s, n, back, err)
		}
	})
}

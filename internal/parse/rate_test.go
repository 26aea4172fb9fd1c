package parse

import (
	"strings"
	"testing"
)

func TestRate(t *testing.T) {
	for in, want := range map[string]float64{
		"500": 500, "50k": 50e3, "50K": 50e3, "2.5M": 2.5e6, "1M/s": 1e6, " 10k ": 10e3, "1G": 1e9, "0.5": 0.5, "1e3": 1000,
	} {
		got, err := Rate(in)
		if err != nil || got != want {
			t.Errorf("Rate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"0": "above 0", "-5k": "above 0", "0k": "above 0", "": "no number", "k": "no number", "1m": "milli",
		"x": "not a number", "NaN": "not a number", "Inf": "not a number", "2G": "cannot schedule", "1e10": "cannot schedule",
	} {
		got, err := Rate(in)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Rate(%q) = %v, %v; want an error saying %q", in, got, err, why)
		}
	}
}

func TestRates(t *testing.T) {
	got, err := Rates("10k,100k,1M")
	if err != nil || len(got) != 3 || got[0] != 1e4 || got[1] != 1e5 || got[2] != 1e6 {
		t.Errorf("Rates = %v, %v", got, err)
	}
	for _, in := range []string{"10k,,1M", "10k,10000", "10k,0", ""} {
		if got, err := Rates(in); err == nil {
			t.Errorf("Rates(%q) = %v, want an error", in, got)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for r, want := range map[float64]string{50e3: "50k", 1.5e6: "1.5M", 750: "750", 1e9: "1G", 12345: "12.35k"} {
		if got := FormatRate(r); got != want {
			t.Errorf("FormatRate(%v) = %q, want %q", r, got, want)
		}
	}
}

// FuzzRate: whatever the input, Rate returns a rate in (0, MaxRate] or
// an error, and a rate it accepts reads back from FormatRate within the
// four digits FormatRate keeps.
func FuzzRate(f *testing.F) {
	for _, s := range []string{"500", "50k", "1M/s", "2.5M", "0", "-1", "1m", "NaN", "1e300", "k", "/s", "1G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Rate(s)
		if err != nil {
			return
		}
		if !(r > 0 && r <= MaxRate) {
			t.Fatalf("Rate(%q) = %v, outside (0, %v]", s, r, MaxRate)
		}
		back, err := Rate(FormatRate(r))
		if err != nil {
			t.Fatalf("Rate(FormatRate(%v) = %q): %v", r, FormatRate(r), err)
		}
		if d := (back - r) / r; d > 1e-3 || d < -1e-3 {
			t.Fatalf("Rate(FormatRate(%v)) = %v", r, back)
		}
	})
}

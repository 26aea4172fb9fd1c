package parse

import (
	"errors"
	"testing"
)

func TestList(t *testing.T) {
	for in, want := range map[string]int{"a": 1, "a,b": 2, " a , b ,c": 3} {
		got, err := List(in)
		if err != nil || len(got) != want {
			t.Errorf("List(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", " ", "0.1,,0.2", "1,,2", "a,", ",a", "a, ,b"} {
		if got, err := List(in); err == nil {
			t.Errorf("List(%q) = %q, want an error", in, got)
		}
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "4096": 4096, "64B": 64, "1KB": 1000, "1kB": 1000, "1KiB": 1024, "1K": 1024, "1k": 1024,
		"1MB": 1e6, "64MiB": 64 << 20, "1GB": 1e9, "1GiB": 1 << 30, "1G": 1 << 30, "1TB": 1e12, "1TiB": 1 << 40,
		"1.5GiB": 3 << 29, "0.5KiB": 512, " 2 MiB ": 2 << 20,
	} {
		got, err := Size(in)
		if err != nil || got != want {
			t.Errorf("Size(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "B", "-1", "-1KiB", "1.5B", "1XB", "abc", "NaN", "Inf", "1e30", "2000PiB", "9223372036854775807"} {
		if got, err := Size(in); err == nil {
			t.Errorf("Size(%q) = %d, want an error", in, got)
		}
	}
}

func TestHasUnit(t *testing.T) {
	for in, want := range map[string]bool{"64": false, "64B": true, "1GB": true, "1TiB": true, "1e3": false, "0.5": false, "": false} {
		if got := HasUnit(in); got != want {
			t.Errorf("HasUnit(%q) = %v", in, got)
		}
	}
}

// TestFraction: "1" and "1.0" never mean different things: the integer is
// refused as a count, 1.0 is refused as not below 1, 100% is the whole.
func TestFraction(t *testing.T) {
	for in, want := range map[string]float64{"0.1": 0.1, "0.05": 0.05, "5%": 0.05, "100%": 1, "0.5 %": 0.005, "1e-3": 0.001} {
		got, err := Fraction(in)
		if err != nil || got != want {
			t.Errorf("Fraction(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := Fraction("1"); !errors.Is(err, ErrInteger) {
		t.Errorf("Fraction(\"1\") = %v, want ErrInteger", err)
	}
	for _, in := range []string{"1.0", "1.5", "0", "0.0", "-0.1", "0%", "101%", "x", "", "NaN"} {
		if got, err := Fraction(in); err == nil {
			t.Errorf("Fraction(%q) = %v, want an error", in, got)
		}
	}
}

package records

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestParseJSONValue: JSON values keep their JSON type; --value-type
// converts what converts without loss and refuses the rest.
func TestParseJSONValue(t *testing.T) {
	vt := func(s string) ValueType {
		v, err := ParseValueType(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		in   string
		vt   ValueType
		want any
		err  string
	}{
		{in: `"text"`, want: "text"},
		{in: `42`, want: int64(42)},
		{in: `-0`, want: int64(0)},
		{in: `4.5`, want: 4.5},
		{in: `1e3`, want: 1000.0},
		{in: `true`, want: true},
		{in: `[1, 2, 3]`, want: []int64{1, 2, 3}},
		{in: `[0.5, 1, 2]`, want: []float64{0.5, 1, 2}},
		{in: `["a", "b"]`, want: []string{"a", "b"}},
		{in: `[1, "a"]`, err: "mixed array"},
		{in: `[true]`, err: "arrays of booleans"},
		{in: `[[1]]`, err: "nested"},
		{in: `{"a": 1}`, err: "object"},
		{in: `null`, err: "null"},
		{in: `[]`, err: "empty array"},
		{in: `[]`, vt: vt("float64s"), want: []float64{}},
		{in: `9223372036854775808`, err: "out of the int64 range"},
		{in: `1e400`, err: "out of the float64 range"},
		{in: `[0.5, 9007199254740993]`, err: "beyond ±2^53"},
		{in: `7`, vt: vt("float64"), want: 7.0},
		{in: `[1, 2]`, vt: vt("float64s:2"), want: []float64{1, 2}},
		{in: `[1, 2]`, vt: vt("float64s:3"), err: "want 3"},
		{in: `"x"`, vt: vt("bytes"), want: []byte("x")},
		{in: `"x"`, vt: vt("int64"), err: "value is string, want int64"},
		{in: `4.5`, vt: vt("int64"), err: "value is float64, want int64"},
		{in: `1 2`, err: "more than one"},
	} {
		got, err := ParseJSONValue([]byte(c.in), c.vt)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s as %v: %v, %v; want error %q", c.in, c.vt, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s as %v: %#v, %v; want %#v", c.in, c.vt, got, err, c.want)
		}
	}
}

// TestTypedText: TSV and CSV value columns parsed by --value-type, with
// the line of a bad value.
func TestTypedText(t *testing.T) {
	f64, _ := ParseValueType("float64")
	src := NewTSV(strings.NewReader("a\t1.5\nb\tNaN\nc\tx\n"), f64)
	if _, v, _, err := src.Next(); err != nil || v != 1.5 {
		t.Fatalf("a: %v, %v", v, err)
	}
	if _, v, _, err := src.Next(); err != nil || fmt.Sprint(v) != "NaN" {
		t.Fatalf("b: %v, %v", v, err)
	}
	var le *LineError
	if _, _, _, err := src.Next(); !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("c: %v", err)
	}
	fs, _ := ParseValueType("[]float64")
	csv := NewCSV(strings.NewReader("k,\"[1,2.5]\"\nl,true\n"), fs)
	if _, v, _, err := csv.Next(); err != nil || !reflect.DeepEqual(v, []float64{1, 2.5}) {
		t.Fatalf("csv: %v, %v", v, err)
	}
	if _, _, _, err := csv.Next(); !errors.As(err, &le) || le.Line != 2 {
		t.Fatalf("csv line 2: %v", err)
	}
	b, _ := ParseValueType("bool")
	for in, want := range map[string]any{"true": true, "0": false} {
		if v, err := ParseText([]byte(in), b); err != nil || v != want {
			t.Errorf("bool %q: %v, %v", in, v, err)
		}
	}
	if _, err := ParseValueType("float64:3"); err == nil {
		t.Error("a scalar with a length was accepted")
	}
	if _, err := ParseValueType("complex"); err == nil {
		t.Error("unknown type accepted")
	}
}

// TestJSONLTyped: the JSON type of each value, value_b64 as bytes, and
// a mixed array failing with its line.
func TestJSONLTyped(t *testing.T) {
	src := NewJSONL(strings.NewReader(`{"key":"a","value":[0.5,1]}
{"key":"b","value":3}
{"key":"c","value_b64":"AAE="}
{"key":"d","value":[1,"x"]}
`), ValueType{})
	want := []any{[]float64{0.5, 1}, int64(3), []byte{0, 1}}
	for i, w := range want {
		if _, v, line, err := src.Next(); err != nil || !reflect.DeepEqual(v, w) || line != int64(i+1) {
			t.Fatalf("line %d: %#v, %v", i+1, v, err)
		}
	}
	var le *LineError
	if _, _, _, err := src.Next(); !errors.As(err, &le) || le.Line != 4 || !strings.Contains(err.Error(), "mixed array") {
		t.Fatalf("line 4: %v", err)
	}
}

// TestSyntheticTyped: the documented synthetic values, and a list type
// without a length refused.
func TestSyntheticTyped(t *testing.T) {
	vt, _ := ParseValueType("float64s:4")
	s, err := NewSynthetic(3, vt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		k, v, _, err := s.Next()
		fs := v.([]float64)
		sum := 0.0
		for _, f := range fs {
			sum += f
		}
		if err != nil || string(k) != fmt.Sprintf("key_%d", i) || len(fs) != 4 || sum != 4*float64(i)+4*3/8.0 {
			t.Fatalf("%s: %v (sum %v), %v", k, fs, sum, err)
		}
	}
	if _, _, _, err := s.Next(); err != io.EOF {
		t.Fatal(err)
	}
	vt, _ = ParseValueType("strings")
	if _, err := NewSynthetic(3, vt); err == nil {
		t.Fatal("a synthetic list without a length was accepted")
	}
}

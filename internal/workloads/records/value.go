package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the type of a value read from an input. A source yields each
// value as the Go value of its kind: []byte, string, int64, float64,
// bool, []int64, []float64 or []string.
type Kind uint8

// The kinds, named as the Go types they yield.
const (
	Bytes Kind = iota
	String
	Int64
	Float64
	Bool
	Int64s
	Float64s
	Strings
	numKinds
)

var kindNames = [numKinds]string{"bytes", "string", "int64", "float64", "bool", "int64s", "float64s", "strings"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

func (k Kind) list() bool { return k == Int64s || k == Float64s || k == Strings }

// ValueType is the type the value column or field must have: a kind
// and, for a list, a length (0: any length). The zero value means bytes
// for TSV and CSV, and "the JSON type" for JSON lines.
type ValueType struct {
	Kind Kind
	Len  int
	Set  bool // given explicitly (--value-type)
}

// ValueTypeHelp describes ParseValueType's syntax, for command help.
const ValueTypeHelp = `bytes, string, int64, float64, bool, int64s, float64s or strings
(also []int64, []float64, []string); a list may carry its length: float64s:32`

// ParseValueType parses "float64", "float64s:32", "[]float64".
func ParseValueType(s string) (ValueType, error) {
	name, n, hasLen := strings.Cut(s, ":")
	if strings.HasPrefix(name, "[]") {
		name = name[2:] + "s"
	}
	for k, kn := range kindNames {
		if name != kn {
			continue
		}
		vt := ValueType{Kind: Kind(k), Set: true}
		if hasLen {
			l, err := strconv.Atoi(n)
			if !vt.Kind.list() || err != nil || l < 0 {
				return ValueType{}, fmt.Errorf("value type %q: only a list type takes a length, a number ≥ 0", s)
			}
			vt.Len = l
		}
		return vt, nil
	}
	return ValueType{}, fmt.Errorf("unknown value type %q (valid: %s)", s, ValueTypeHelp)
}

// String formats vt as ParseValueType reads it.
func (vt ValueType) String() string {
	if vt.Len > 0 {
		return fmt.Sprintf("%v:%d", vt.Kind, vt.Len)
	}
	return vt.Kind.String()
}

// ParseText parses the text of a TSV or CSV value column as vt: bytes
// as they are, a string that must be UTF-8, numbers and booleans as
// strconv reads them (booleans: true, false, 1, 0), and lists as JSON
// arrays ([1.5, 2], ["a", "b"]).
func ParseText(text []byte, vt ValueType) (any, error) {
	switch vt.Kind {
	case Bytes:
		return text, nil
	case String:
		if !utf8.Valid(text) {
			return nil, fmt.Errorf("string value is not valid UTF-8 at byte %d", firstInvalid(text)+1)
		}
		return string(text), nil
	case Int64:
		x, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("int64 value %q: %w", text, errors.Unwrap(err))
		}
		return x, nil
	case Float64:
		x, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			return nil, fmt.Errorf("float64 value %q: %w", text, errors.Unwrap(err))
		}
		return x, nil
	case Bool:
		switch string(text) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("bool value %q: want true, false, 1 or 0", text)
	}
	return ParseJSONValue(text, vt)
}

// maxExact is the largest integer every smaller one of which a float64
// holds exactly.
const maxExact = 1 << 53

// ParseJSONValue parses one JSON value: its JSON type decides the kind
// unless vt is set (then it must convert to vt). An integer (no fraction
// or exponent) is an int64, another number a float64; an array of
// integers is an int64s, of numbers with at least one non-integer a
// float64s (its integers converted exactly), of strings a strings. A
// mixed array, an array of booleans, a nested array, an object and null
// are errors, and so is an empty array unless vt names a list. An
// integer converts to a float64 (within ±2^53, where it stays exact), a
// string to bytes.
func ParseJSONValue(raw []byte, vt ValueType) (any, error) {
	if err := checkJSONText(raw); err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	var v any
	var k Kind
	if d, ok := tok.(json.Delim); ok && d == '[' {
		v, k, err = jsonArray(dec, vt)
	} else {
		v, k, err = jsonScalar(tok)
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("value: more than one JSON value")
	}
	if !vt.Set || vt.Kind == k {
		return v, checkLen(v, vt)
	}
	v, err = convert(v, k, vt.Kind)
	if err != nil {
		return nil, err
	}
	return v, checkLen(v, vt)
}

// jsonScalar turns a scalar token into its Go value and kind.
func jsonScalar(tok any) (any, Kind, error) {
	switch t := tok.(type) {
	case string:
		return t, String, nil
	case bool:
		return t, Bool, nil
	case json.Number:
		return jsonNumber(t)
	case nil:
		return nil, 0, errors.New("value is null: no such value type")
	case json.Delim:
		if t == '{' {
			return nil, 0, errors.New("value is an object: objects are not a value type (use a string)")
		}
	}
	return nil, 0, fmt.Errorf("value: unexpected %v", tok)
}

// jsonNumber is an int64 for integer syntax, else a float64.
func jsonNumber(n json.Number) (any, Kind, error) {
	if !strings.ContainsAny(string(n), ".eE") {
		x, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("integer %s is out of the int64 range", n)
		}
		return x, Int64, nil
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil, 0, fmt.Errorf("number %s is out of the float64 range", n)
	}
	return x, Float64, nil
}

// jsonArray reads the elements of an array whose '[' was read.
func jsonArray(dec *json.Decoder, vt ValueType) (any, Kind, error) {
	var ints []int64
	var floats []float64
	var strs []string
	anyFloat, big := false, -1
	seen := map[Kind]bool{}
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, fmt.Errorf("value: %w", err)
		}
		if _, ok := tok.(json.Delim); ok {
			return nil, 0, fmt.Errorf("value: element %d is an array or object: nested values are not a value type", i)
		}
		x, k, err := jsonScalar(tok)
		if err != nil {
			return nil, 0, fmt.Errorf("element %d: %w", i, err)
		}
		seen[k] = true
		switch k {
		case Int64:
			n := x.(int64)
			ints, floats = append(ints, n), append(floats, float64(n))
			if (n > maxExact || n < -maxExact) && big < 0 {
				big = i // exact as an int64; an array of floats would lose it
			}
		case Float64:
			anyFloat = true
			floats = append(floats, x.(float64))
		case String:
			strs = append(strs, x.(string))
		case Bool:
			return nil, 0, fmt.Errorf("value: element %d is a boolean: arrays of booleans are not a value type", i)
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, 0, fmt.Errorf("value: %w", err)
	}
	numbers := seen[Int64] || seen[Float64]
	switch {
	case numbers && seen[String]:
		return nil, 0, errors.New("value: mixed array of numbers and strings")
	case seen[String]:
		return strs, Strings, nil
	case anyFloat && big >= 0:
		return nil, 0, fmt.Errorf("value: element %d is an integer beyond ±2^53 in an array of floats: it would not stay exact", big)
	case anyFloat:
		return floats, Float64s, nil
	case numbers:
		return ints, Int64s, nil
	case vt.Set && vt.Kind.list():
		return emptyList(vt.Kind), vt.Kind, nil
	}
	return nil, 0, errors.New("value: empty array: its element type is unknown (give --value-type)")
}

func emptyList(k Kind) any {
	switch k {
	case Int64s:
		return []int64{}
	case Float64s:
		return []float64{}
	}
	return []string{}
}

// convert turns v of kind from into kind to, where that loses nothing.
func convert(v any, from, to Kind) (any, error) {
	switch {
	case from == String && to == Bytes:
		return []byte(v.(string)), nil
	case from == Int64 && to == Float64:
		n := v.(int64)
		if n > maxExact || n < -maxExact {
			return nil, fmt.Errorf("integer %d beyond ±2^53 would not stay exact as a float64", n)
		}
		return float64(n), nil
	case from == Int64s && to == Float64s:
		out := make([]float64, len(v.([]int64)))
		for i, n := range v.([]int64) {
			if n > maxExact || n < -maxExact {
				return nil, fmt.Errorf("element %d: integer %d beyond ±2^53 would not stay exact as a float64", i, n)
			}
			out[i] = float64(n)
		}
		return out, nil
	}
	return nil, fmt.Errorf("value is %s, want %s", from, to)
}

// checkLen checks a list's length against vt.Len.
func checkLen(v any, vt ValueType) error {
	if vt.Len == 0 {
		return nil
	}
	n := -1
	switch x := v.(type) {
	case []int64:
		n = len(x)
	case []float64:
		n = len(x)
	case []string:
		n = len(x)
	}
	if n >= 0 && n != vt.Len {
		return fmt.Errorf("list of %d elements, want %d (%s)", n, vt.Len, vt)
	}
	return nil
}

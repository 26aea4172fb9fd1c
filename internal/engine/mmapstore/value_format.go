package mmapstore

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// String formats the value for people: bytes and strings quoted as Go
// strings, numbers as strconv does, lists in brackets separated by
// spaces ("[0.5 1 1.5]"). A payload that does not decode as its type
// prints as "<corrupt ...>". It is what `cachebench inspect --get`
// prints.
func (v Value) String() string {
	switch v.typ {
	case TypeBytes, TypeString:
		return strconv.Quote(string(v.b))
	case TypeInt64:
		x, err := v.Int64()
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return strconv.FormatInt(x, 10)
	case TypeFloat64:
		x, err := v.Float64()
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case TypeBool:
		x, err := v.Bool()
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return strconv.FormatBool(x)
	case TypeInt64s:
		xs, err := v.Int64s()
		return formatList(xs, err, func(x int64) string { return strconv.FormatInt(x, 10) })
	case TypeFloat64s:
		xs, err := v.Float64s()
		return formatList(xs, err, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
	case TypeStrings:
		xs, err := v.Strings()
		return formatList(xs, err, strconv.Quote)
	default:
		return "<" + v.typ.String() + ">"
	}
}

// formatList is a list value for people: "[a b c]", each element by
// format, or "<error>" when the list did not decode.
func formatList[T any](xs []T, err error, format func(T) string) string {
	if err != nil {
		return "<" + err.Error() + ">"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(format(x))
	}
	b.WriteByte(']')
	return b.String()
}

// MarshalJSON writes the value as the JSON value of its type: a string
// for bytes (as Go converts bytes to a string: invalid UTF-8 becomes
// U+FFFD) and strings, a number, a boolean or an array. NaN and the
// infinities, which JSON numbers cannot carry, are written as the
// strings "NaN", "+Inf" and "-Inf". A payload that does not decode is an
// error.
func (v Value) MarshalJSON() ([]byte, error) {
	var x any
	var err error
	switch v.typ {
	case TypeBytes, TypeString:
		x = string(v.b)
	case TypeInt64:
		x, err = v.Int64()
	case TypeFloat64:
		var f float64
		f, err = v.Float64()
		x = jsonFloat(f)
	case TypeBool:
		x, err = v.Bool()
	case TypeInt64s:
		x, err = v.Int64s()
	case TypeFloat64s:
		var fs []float64
		fs, err = v.Float64s()
		out := make([]any, len(fs))
		for i, f := range fs {
			out[i] = jsonFloat(f)
		}
		x = out
	case TypeStrings:
		x, err = v.Strings()
	default:
		err = v.corrupt()
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// jsonFloat is f, or its name where JSON has no number for it.
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return f
}

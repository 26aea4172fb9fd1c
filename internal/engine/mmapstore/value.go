package mmapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Type is the type of a stored value. It is stored with the value
// (FORMAT.md, "Typed values"), so a reader gets numbers and vectors back
// as they were built instead of parsing text on every lookup.
type Type uint8

// The value types. TypeBytes is what Add stores and what a file without
// typed values holds; its entries carry no type byte.
const (
	TypeBytes    Type = iota // uninterpreted bytes
	TypeString               // UTF-8 text (checked by the builder and Verify)
	TypeInt64                // 8 bytes, little-endian two's complement
	TypeFloat64              // 8 bytes, little-endian IEEE 754 binary64
	TypeBool                 // 1 byte, 0 or 1
	TypeInt64s               // n × 8 bytes, little-endian, 8-aligned in the file
	TypeFloat64s             // n × 8 bytes, little-endian, 8-aligned in the file
	TypeStrings              // uvarint count, then per string uvarint length and bytes
	numTypes
)

var typeNames = [numTypes]string{"bytes", "string", "int64", "float64", "bool", "[]int64", "[]float64", "[]string"}

// String returns the type's Go-like name ("int64", "[]float64").
func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Types lists every value type, in Type order.
func Types() []Type {
	ts := make([]Type, numTypes)
	for i := range ts {
		ts[i] = Type(i)
	}
	return ts
}

// ParseType returns the type named s: its String form ("[]float64") or
// the same without brackets and with a plural s ("float64s").
func ParseType(s string) (Type, error) {
	for t, name := range typeNames {
		if s == name || (strings.HasPrefix(name, "[]") && s == name[2:]+"s") {
			return Type(t), nil
		}
	}
	return 0, fmt.Errorf("unknown value type %q (valid: bytes, string, int64, float64, bool, int64s, float64s, strings)", s)
}

// aligned reports whether values of type t start at a multiple of 8 in
// the file, so that they can be returned as a slice over the mapping.
// Such values are never stored inline in a bucket.
func (t Type) aligned() bool { return t == TypeInt64s || t == TypeFloat64s }

// fits reports whether a payload of n bytes has the size type t needs.
// It is the one shape check every reader applies (lookups, the bucket
// parser, the record decoder); a type byte or a length that does not
// fit makes the entry undecodable, never reinterpreted.
func (t Type) fits(n uint64) bool {
	switch t {
	case TypeBytes, TypeString:
		return true
	case TypeInt64, TypeFloat64:
		return n == 8
	case TypeBool:
		return n == 1
	case TypeInt64s, TypeFloat64s:
		return n%8 == 0
	case TypeStrings:
		return n >= 1
	}
	return false
}

// ErrType means a typed getter was asked for a value of another type
// (matched by *TypeError). The value is never reinterpreted.
var ErrType = errors.New("value type mismatch")

// TypeError is a typed read of a value of another type.
type TypeError struct{ Want, Got Type }

func (e *TypeError) Error() string {
	return fmt.Sprintf("%v: the value is %v, not %v", ErrType, e.Got, e.Want)
}

// Is makes errors.Is(err, ErrType) true.
func (e *TypeError) Is(target error) bool { return target == ErrType }

// Value is a stored value and its type. Values returned by a Store are
// slices of the mapping, valid until Close; the zero Value is an empty
// TypeBytes value.
type Value struct {
	typ Type
	b   []byte
}

// Type returns the value's type.
func (v Value) Type() Type { return v.typ }

// Bytes returns the value's payload as stored (FORMAT.md): the value
// itself for TypeBytes and TypeString, its little-endian encoding for
// the others. It never fails: it is what Get returns.
func (v Value) Bytes() []byte { return v.b }

func (v Value) want(t Type) error {
	if v.typ != t {
		return &TypeError{Want: t, Got: v.typ}
	}
	return nil
}

// corrupt reports a payload whose size does not fit its type; the
// store's lookups never return one, so only a Value built by hand or a
// bug can reach it.
func (v Value) corrupt() error {
	return fmt.Errorf("%w: %d-byte %v value", ErrCorrupt, len(v.b), v.typ)
}

// Int64 returns a TypeInt64 value.
func (v Value) Int64() (int64, error) {
	if err := v.want(TypeInt64); err != nil {
		return 0, err
	}
	if len(v.b) != 8 {
		return 0, v.corrupt()
	}
	return int64(binary.LittleEndian.Uint64(v.b)), nil
}

// Float64 returns a TypeFloat64 value.
func (v Value) Float64() (float64, error) {
	if err := v.want(TypeFloat64); err != nil {
		return 0, err
	}
	if len(v.b) != 8 {
		return 0, v.corrupt()
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(v.b)), nil
}

// Bool returns a TypeBool value; a byte other than 0 or 1 is ErrCorrupt.
func (v Value) Bool() (bool, error) {
	if err := v.want(TypeBool); err != nil {
		return false, err
	}
	if len(v.b) != 1 || v.b[0] > 1 {
		return false, v.corrupt()
	}
	return v.b[0] == 1, nil
}

// Text returns a TypeString value's bytes without copying (read-only,
// valid until Close). Store.GetString copies them into a Go string.
func (v Value) Text() ([]byte, error) {
	if err := v.want(TypeString); err != nil {
		return nil, err
	}
	return v.b, nil
}

// inPlace says whether numeric lists may be returned as slices over the
// stored bytes: only where the host's byte order is the file's. Tests
// clear it to run the decoding path.
var inPlace = hostLittleEndian()

func hostLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// words returns the 8-byte words of a numeric list as a pointer to the
// first one when they can be used in place (little-endian host, 8-byte
// aligned: always so for values from a mapped file), else nil.
func (v Value) words() unsafe.Pointer {
	p := unsafe.Pointer(unsafe.SliceData(v.b))
	if !inPlace || uintptr(p)%8 != 0 {
		return nil
	}
	return p
}

// Int64s returns a TypeInt64s value. On a little-endian host it is a
// slice over the mapping, without a copy or an allocation: read-only
// (writing to it faults) and valid until Close. Elsewhere it is decoded
// into a new slice.
func (v Value) Int64s() ([]int64, error) {
	return numericList(v, TypeInt64s, func(u uint64) int64 { return int64(u) })
}

// Float64s returns a TypeFloat64s value, in place as Int64s is.
func (v Value) Float64s() ([]float64, error) {
	return numericList(v, TypeFloat64s, math.Float64frombits)
}

// numericList is Int64s and Float64s: the value's 8-byte little-endian
// words as a []T in place where the host allows it (see words), else
// decoded one by one with fromBits.
func numericList[T int64 | float64](v Value, t Type, fromBits func(uint64) T) ([]T, error) {
	if err := v.want(t); err != nil {
		return nil, err
	}
	n := len(v.b) / 8
	switch {
	case len(v.b)%8 != 0:
		return nil, v.corrupt()
	case n == 0:
		return []T{}, nil
	}
	if p := v.words(); p != nil {
		return unsafe.Slice((*T)(p), n), nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = fromBits(binary.LittleEndian.Uint64(v.b[8*i:]))
	}
	return out, nil
}

// Strings returns a TypeStrings value as new Go strings. A list whose
// lengths do not add up to its size is ErrCorrupt.
func (v Value) Strings() ([]string, error) {
	if err := v.want(TypeStrings); err != nil {
		return nil, err
	}
	var out []string
	err := eachString(v.b, func(s []byte) {
		if out == nil {
			out = make([]string, 0, 4)
		}
		out = append(out, string(s))
	})
	if err != nil {
		return nil, fmt.Errorf("%w: []string value: %w", ErrCorrupt, err)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// eachString calls fn with each element of an encoded []string, after
// checking that the whole list decodes (so fn never sees part of a bad
// list).
func eachString(b []byte, fn func([]byte)) error {
	n, m := binary.Uvarint(b)
	// Every element takes at least one byte: a count beyond that is
	// corrupt, and nothing is sized by it.
	if m <= 0 || n > uint64(len(b)-m) {
		return errors.New("bad element count")
	}
	p, q := m, m
	for range n {
		l, m := binary.Uvarint(b[q:])
		if m <= 0 || l > uint64(len(b)-q-m) {
			return errors.New("an element runs past the value")
		}
		q += m + int(l)
	}
	if q != len(b) {
		return fmt.Errorf("%d bytes after the last element", len(b)-q)
	}
	for range n {
		l, m := binary.Uvarint(b[p:])
		fn(b[p+m : p+m+int(l)])
		p += m + int(l)
	}
	return nil
}

// checkValue checks the shape check (Type.fits) and what it does not:
// that strings are UTF-8, a bool is 0 or 1 and a []string decodes. The
// builder runs it on every typed value it is given and Verify on every
// stored one; lookups do not (it reads the whole value), but the typed
// getters make the same checks where they are cheap. Its errors say
// what is wrong; callers add ErrValue or ErrCorrupt.
func checkValue(t Type, b []byte) error {
	if t >= numTypes {
		return fmt.Errorf("unknown value type %d", uint8(t))
	}
	if !t.fits(uint64(len(b))) {
		return fmt.Errorf("a %d-byte payload cannot hold a %v", len(b), t)
	}
	switch t {
	case TypeString:
		if !utf8.Valid(b) {
			return errors.New("string value is not valid UTF-8")
		}
	case TypeBool:
		if b[0] > 1 {
			return fmt.Errorf("bool value is %d", b[0])
		}
	case TypeStrings:
		bad := false
		if err := eachString(b, func(s []byte) { bad = bad || !utf8.Valid(s) }); err != nil {
			return fmt.Errorf("[]string value: %w", err)
		}
		if bad {
			return errors.New("[]string element is not valid UTF-8")
		}
	}
	return nil
}

// Constructors, for the builder. Each encodes its argument into a new
// payload; ValueOf is the same encoding for a value whose type is known
// only at run time.

// BytesValue is b as TypeBytes (what Add stores); b is not copied.
func BytesValue(b []byte) Value { return Value{TypeBytes, b} }

// StringValue is s as TypeString.
func StringValue(s string) Value { return mustValue(s) }

// Int64Value is x as TypeInt64.
func Int64Value(x int64) Value { return mustValue(x) }

// Float64Value is x as TypeFloat64.
func Float64Value(x float64) Value { return mustValue(x) }

// BoolValue is x as TypeBool.
func BoolValue(x bool) Value { return mustValue(x) }

// Int64sValue is xs as TypeInt64s.
func Int64sValue(xs []int64) Value { return mustValue(xs) }

// Float64sValue is xs as TypeFloat64s.
func Float64sValue(xs []float64) Value { return mustValue(xs) }

// StringsValue is xs as TypeStrings.
func StringsValue(xs []string) Value { return mustValue(xs) }

func mustValue(x any) Value {
	v, err := ValueOf(x)
	if err != nil {
		panic(err) // unreachable: the constructors pass supported types
	}
	return v
}

// ValueOf encodes x, a []byte, string, int64, float64, bool, []int64,
// []float64 or []string, as the Value of that type (a []byte is not
// copied). Any other type is an ErrValue error.
func ValueOf(x any) (Value, error) {
	if b, ok := x.([]byte); ok {
		return Value{TypeBytes, b}, nil
	}
	return appendValue(nil, x)
}

// appendValue is ValueOf that appends the payload to dst (a []byte is
// copied too), so that BuildFrom reuses one buffer: the Value's bytes
// are dst followed by the payload, so pass an empty dst.
func appendValue(dst []byte, x any) (Value, error) {
	var t Type
	le := binary.LittleEndian
	switch x := x.(type) {
	case []byte:
		t, dst = TypeBytes, append(dst, x...)
	case string:
		t, dst = TypeString, append(dst, x...)
	case int64:
		t, dst = TypeInt64, le.AppendUint64(dst, uint64(x))
	case float64:
		t, dst = TypeFloat64, le.AppendUint64(dst, math.Float64bits(x))
	case bool:
		t = TypeBool
		if x {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case []int64:
		t = TypeInt64s
		for _, n := range x {
			dst = le.AppendUint64(dst, uint64(n))
		}
	case []float64:
		t = TypeFloat64s
		for _, f := range x {
			dst = le.AppendUint64(dst, math.Float64bits(f))
		}
	case []string:
		t = TypeStrings
		dst = binary.AppendUvarint(dst, uint64(len(x)))
		for _, s := range x {
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			dst = append(dst, s...)
		}
	default:
		return Value{}, fmt.Errorf("%w: cannot store a %T", ErrValue, x)
	}
	if dst == nil {
		dst = []byte{}
	}
	return Value{t, dst}, nil
}

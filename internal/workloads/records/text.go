package records

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/cachebench/cachebench/internal/fileio"
)

// TSV reads key<TAB>value lines with backslash escapes; the value is
// parsed as vt (ParseText). A UTF-8 byte order mark before the first line
// is dropped, as editors on Windows write one.
type TSV struct {
	sc       *bufio.Scanner
	vt       ValueType
	line     int64
	key, val []byte
}

// NewTSV reads TSV from r.
func NewTSV(r io.Reader, vt ValueType) *TSV { return &TSV{sc: newScanner(r), vt: vt} }

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	return sc
}

// scanErr turns the scanner's final error into a LineError, or io.EOF.
func scanErr(sc *bufio.Scanner, line int64) error {
	err := sc.Err()
	if err == nil {
		return io.EOF
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return lineErr(line+1, "line longer than %d bytes", MaxLine)
	}
	return &LineError{Line: line, Err: err}
}

// Next implements Source.
func (s *TSV) Next() ([]byte, any, int64, error) {
	for s.sc.Scan() {
		s.line++
		ln := bytes.TrimSuffix(s.sc.Bytes(), []byte{'\r'})
		if s.line == 1 {
			ln = bytes.TrimPrefix(ln, fileio.BOM)
		}
		if len(ln) == 0 {
			continue
		}
		tab := bytes.IndexByte(ln, '\t')
		if tab < 0 {
			return nil, nil, s.line, lineErr(s.line, "no tab between key and value")
		}
		if bytes.IndexByte(ln[tab+1:], '\t') >= 0 {
			return nil, nil, s.line, lineErr(s.line, "more than one tab (escape tabs in values as \\t)")
		}
		var err error
		if s.key, err = Unescape(s.key[:0], ln[:tab]); err != nil {
			return nil, nil, s.line, lineErr(s.line, "key: %w", err)
		}
		if s.val, err = Unescape(s.val[:0], ln[tab+1:]); err != nil {
			return nil, nil, s.line, lineErr(s.line, "value: %w", err)
		}
		v, err := ParseText(s.val, s.vt)
		if err != nil {
			return nil, nil, s.line, &LineError{Line: s.line, Err: err}
		}
		return s.key, v, s.line, nil
	}
	return nil, nil, s.line, scanErr(s.sc, s.line)
}

// Unescape appends src to dst with the TSV escapes \\ \t \n \r \0 \xHH
// decoded; any other escape is an error.
func Unescape(dst, src []byte) ([]byte, error) {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i+1 == len(src) {
			return dst, errors.New("backslash at end of field")
		}
		i++
		switch src[i] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case '0':
			dst = append(dst, 0)
		case 'x':
			if i+2 >= len(src) {
				return dst, errors.New(`truncated \x escape`)
			}
			v, err := strconv.ParseUint(string(src[i+1:i+3]), 16, 8)
			if err != nil {
				return dst, fmt.Errorf(`invalid escape \x%s`, src[i+1:i+3])
			}
			dst = append(dst, byte(v))
			i += 2
		default:
			return dst, fmt.Errorf(`invalid escape \%c (valid: \\ \t \n \r \0 \xHH)`, src[i])
		}
	}
	return dst, nil
}

// CSV reads two-column CSV records (RFC 4180 quoting); the value is
// parsed as vt (ParseText). A leading UTF-8 byte order mark is dropped.
// A CR LF inside a quoted field is read as LF, encoding/csv's rule (RFC
// 4180 line breaks are CR LF, and a file that went through a Windows
// editor would otherwise store its keys with a CR no lookup types):
// FormatHelp says so, and a value that must hold a CR goes through TSV's
// \r escape or JSONL.
type CSV struct {
	r  *csv.Reader
	vt ValueType
}

// NewCSV reads CSV from r.
func NewCSV(r io.Reader, vt ValueType) *CSV {
	cr := csv.NewReader(fileio.SkipBOM(r))
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	return &CSV{r: cr, vt: vt}
}

// Next implements Source.
func (s *CSV) Next() ([]byte, any, int64, error) {
	rec, err := s.r.Read()
	if err == io.EOF {
		return nil, nil, 0, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, nil, int64(pe.Line), &LineError{Line: int64(pe.Line), Err: pe.Err}
		}
		return nil, nil, 0, &LineError{Err: err}
	}
	line, _ := s.r.FieldPos(0)
	v, err := ParseText([]byte(rec[1]), s.vt)
	if err != nil {
		return nil, nil, int64(line), &LineError{Line: int64(line), Err: err}
	}
	return []byte(rec[0]), v, int64(line), nil
}

// JSONL reads one object per line: {"key": STRING, "value": VALUE}, or
// with key_b64 / value_b64 (standard base64, padded) in place of key /
// value for binary data. VALUE keeps its JSON type (ParseJSONValue): a
// string is a string, an integer an int64, another number a float64, a
// boolean a bool, an array of one of them a list; value_b64 gives
// bytes. With vt set every value must convert to it (vt bytes turns
// strings into bytes, as the format stored them before values were
// typed). Strings must be valid UTF-8, and their \u escapes valid
// UTF-16 (checkJSONText): JSON cannot carry other bytes, and silently
// replacing them with U+FFFD would store a key no one can look up, or
// merge distinct keys into one. A leading UTF-8 byte order mark is
// dropped.
type JSONL struct {
	sc       *bufio.Scanner
	vt       ValueType
	line     int64
	key, val []byte
}

// NewJSONL reads JSON lines from r.
func NewJSONL(r io.Reader, vt ValueType) *JSONL { return &JSONL{sc: newScanner(r), vt: vt} }

type jsonlRecord struct {
	Key      *string         `json:"key"`
	Value    json.RawMessage `json:"value"`
	KeyB64   *string         `json:"key_b64"`
	ValueB64 *string         `json:"value_b64"`
}

// Next implements Source.
func (s *JSONL) Next() ([]byte, any, int64, error) {
	for s.sc.Scan() {
		s.line++
		ln := bytes.TrimSpace(s.sc.Bytes())
		if len(ln) == 0 {
			continue
		}
		if s.line == 1 {
			ln = bytes.TrimPrefix(ln, fileio.BOM)
		}
		if err := checkJSONText(ln); err != nil {
			return nil, nil, s.line, &LineError{Line: s.line, Err: err}
		}
		if err := checkFields(ln, jsonlFields); err != nil {
			return nil, nil, s.line, &LineError{Line: s.line, Err: err}
		}
		var rec jsonlRecord
		dec := json.NewDecoder(bytes.NewReader(ln))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				// Not "Go struct field jsonlRecord.key": the field as the
				// file names it.
				what := "a string"
				if te.Field == "value" {
					what = "a JSON value"
				}
				return nil, nil, s.line, lineErr(s.line, "%s must be %s, got a %s", te.Field, what, te.Value)
			}
			return nil, nil, s.line, lineErr(s.line, "%v", err)
		}
		if dec.More() {
			return nil, nil, s.line, lineErr(s.line, "more than one JSON value on the line")
		}
		var err error
		if s.key, err = field(s.key[:0], rec.Key, rec.KeyB64, "key"); err != nil {
			return nil, nil, s.line, &LineError{Line: s.line, Err: err}
		}
		v, err := s.value(&rec)
		if err != nil {
			return nil, nil, s.line, &LineError{Line: s.line, Err: err}
		}
		return s.key, v, s.line, nil
	}
	return nil, nil, s.line, scanErr(s.sc, s.line)
}

// value decodes the value of rec.
func (s *JSONL) value(rec *jsonlRecord) (any, error) {
	switch {
	case rec.Value != nil && rec.ValueB64 != nil:
		return nil, errors.New("both value and value_b64 given")
	case rec.Value != nil:
		return ParseJSONValue(rec.Value, s.vt)
	case rec.ValueB64 != nil:
		if s.vt.Set && s.vt.Kind != Bytes {
			return nil, fmt.Errorf("value_b64 gives bytes, want %s", s.vt)
		}
		out, err := base64.StdEncoding.AppendDecode(s.val[:0], []byte(*rec.ValueB64))
		if err != nil {
			return nil, fmt.Errorf("value_b64: %w", err)
		}
		s.val = out
		return out, nil
	}
	return nil, errors.New(`want {"key": string, "value": value} (or key_b64/value_b64), value missing`)
}

// field decodes a key given as text or as base64.
func field(dst []byte, text, b64 *string, name string) ([]byte, error) {
	switch {
	case text != nil && b64 != nil:
		return nil, fmt.Errorf("both %s and %s_b64 given", name, name)
	case text != nil:
		return append(dst, *text...), nil
	case b64 != nil:
		out, err := base64.StdEncoding.AppendDecode(dst, []byte(*b64))
		if err != nil {
			return nil, fmt.Errorf("%s_b64: %w", name, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf(`want {"key": string, "value": value} (or key_b64/value_b64), %s missing`, name)
}

// firstInvalid returns the offset of the first byte that is not part of
// valid UTF-8.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

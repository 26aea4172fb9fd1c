package records

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// readAll reads every pair of src, keys as strings.
func readAll(src Source) ([]string, []any, error) {
	var keys []string
	var vals []any
	for {
		k, v, _, err := src.Next()
		if err == io.EOF {
			return keys, vals, nil
		}
		if err != nil {
			return keys, vals, err
		}
		keys = append(keys, string(k))
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		vals = append(vals, v)
	}
}

// Lone surrogates are refused with their line: encoding/json turns each of
// them into U+FFFD, which made "user\udc00", "user\udfff" and "user\ud800"
// one key.
func TestJSONLRefusesInvalidUTF16(t *testing.T) {
	for _, bad := range []string{
		`{"key":"user\udc00","value":"1"}`,
		`{"key":"user\udfff","value":"1"}`,
		`{"key":"user\ud800","value":"1"}`,
		`{"key":"user\ud800x","value":"1"}`,
		`{"key":"user\ud800\u0041","value":"1"}`,
		`{"key":"k","value":"v\udc00"}`,
		`{"key":"k","value":["a","\ud83d"]}`,
		`{"key":"k","value":"v\uDC00"}`,
	} {
		src := NewJSONL(strings.NewReader("{\"key\":\"ok\",\"value\":1}\n"+bad+"\n"), ValueType{})
		_, _, err := readAll(src)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "invalid UTF-16 escape") {
			t.Errorf("%s: %v, want an invalid UTF-16 error on line 2", bad, err)
		}
	}
	// Valid escapes pass: a surrogate pair, an escaped backslash before a
	// u (no escape at all), ordinary \u escapes.
	src := NewJSONL(strings.NewReader(`{"key":"\ud83d\ude00","value":"\\udc00"}`+"\n"+`{"key":"\u00e9\"","value":"\u0041"}`+"\n"), ValueType{})
	keys, vals, err := readAll(src)
	if err != nil || len(keys) != 2 || keys[0] != "😀" || vals[0] != `\udc00` || keys[1] != "é\"" || vals[1] != "A" {
		t.Fatalf("valid escapes: %q %q %v", keys, vals, err)
	}
}

// A TSV list value is JSON too: the same rule holds there.
func TestTextListRefusesInvalidUTF16(t *testing.T) {
	vt, _ := ParseValueType("strings")
	_, _, err := readAll(NewTSV(strings.NewReader("k\t[\"a\\\\udc00\"]\n"), vt))
	if err == nil || !strings.Contains(err.Error(), "invalid UTF-16") {
		t.Fatalf("TSV strings value with a lone surrogate: %v", err)
	}
}

func TestJSONLNumericKey(t *testing.T) {
	_, _, err := readAll(NewJSONL(strings.NewReader(`{"key":12,"value":"1"}`+"\n"), ValueType{}))
	if err == nil || err.Error() != "line 1: key must be a string, got a number" {
		t.Fatalf("numeric key: %v", err)
	}
	_, _, err = readAll(NewJSONL(strings.NewReader(`{"key_b64":true,"value":"1"}`+"\n"), ValueType{}))
	if err == nil || strings.Contains(err.Error(), "Go struct") || !strings.Contains(err.Error(), "key_b64 must be a string") {
		t.Fatalf("boolean key_b64: %v", err)
	}
}

// A UTF-8 byte order mark is no part of the first key, in any format.
func TestBOMStripped(t *testing.T) {
	const bom = "\ufeff"
	for name, src := range map[string]Source{
		"tsv":   NewTSV(strings.NewReader(bom+"k\tv\n"), ValueType{}),
		"csv":   NewCSV(strings.NewReader(bom+"k,v\n"), ValueType{}),
		"jsonl": NewJSONL(strings.NewReader(bom+`{"key":"k","value":"v"}`+"\n"), ValueType{}),
	} {
		keys, vals, err := readAll(src)
		if err != nil || len(keys) != 1 || keys[0] != "k" || vals[0] != "v" {
			t.Errorf("%s: %q %q %v", name, keys, vals, err)
		}
	}
	// Only a leading one: a BOM inside a key is data.
	keys, _, err := readAll(NewTSV(strings.NewReader("a\tv\n"+bom+"b\tv\n"), ValueType{}))
	if err != nil || keys[1] != bom+"b" {
		t.Fatalf("a BOM on line 2: %q %v", keys, err)
	}
	// A file shorter than a BOM reads as it is.
	keys, _, err = readAll(NewCSV(strings.NewReader("k,"), ValueType{}))
	if err != nil || len(keys) != 1 || keys[0] != "k" {
		t.Fatalf("short CSV: %q %v", keys, err)
	}
}

// CRLF inside a quoted CSV field is read as LF: encoding/csv's rule, which
// FormatHelp states. This test holds the help to what the reader does.
func TestCSVQuotedCRLFReadAsLF(t *testing.T) {
	keys, vals, err := readAll(NewCSV(strings.NewReader("\"a\r\nb\",\"x\r\ny\"\r\n"), ValueType{}))
	if err != nil || len(keys) != 1 || keys[0] != "a\nb" || vals[0] != "x\ny" {
		t.Fatalf("quoted CRLF: %q %q %v", keys, vals, err)
	}
	if !strings.Contains(FormatHelp, "CR LF\n         inside a quoted field is read as LF") {
		t.Fatal("FormatHelp no longer says that CSV reads a quoted CR LF as LF")
	}
}

// FuzzJSONL holds the JSONL reader to its rule: every line is read whole
// or refused. A key or value it yields is what the line says: decoding
// the accepted line's key again with encoding/json gives the same bytes,
// and never holds a U+FFFD the line did not spell out.
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{
		`{"key":"a","value":"1"}`, `{"key":"user\udc00","value":1}`, `{"key":"\ud83d\ude00","value":[1,2]}`,
		`{"key_b64":"/w==","value_b64":"AAE="}`, "\ufeff{\"key\":\"k\",\"value\":true}", `{"key":1,"value":1}`,
		`{"key":"\\u","value":"\u"}`, `{"key":"k","value":"\ufffd"}`, `{"key":"\ud800\udbff","value":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		src := NewJSONL(strings.NewReader(string(line)), ValueType{})
		for {
			k, v, _, err := src.Next()
			if err != nil {
				var le *LineError
				if err != io.EOF && !errors.As(err, &le) {
					t.Fatalf("error of another type: %v", err)
				}
				return
			}
			if !utf8.Valid(k) && !strings.Contains(string(line), "key_b64") {
				t.Fatalf("key %q is not UTF-8", k)
			}
			if strings.Contains(string(k), "\ufffd") && !strings.Contains(string(line), "\ufffd") &&
				!strings.Contains(strings.ToLower(string(line)), `\ufffd`) && !strings.Contains(string(line), "key_b64") {
				t.Fatalf("key %q holds U+FFFD that %q does not spell", k, line)
			}
			if s, ok := v.(string); ok && strings.Contains(s, "\ufffd") && !strings.Contains(string(line), "\ufffd") &&
				!strings.Contains(strings.ToLower(string(line)), `\ufffd`) {
				t.Fatalf("value %q holds U+FFFD that %q does not spell", s, line)
			}
			var probe struct{ Key *string }
			if json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(string(line)), "\ufeff")), &probe) == nil && probe.Key != nil && *probe.Key != string(k) {
				t.Fatalf("key %q, encoding/json reads %q", k, *probe.Key)
			}
		}
	})
}

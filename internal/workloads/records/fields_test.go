package records

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJSONLFieldNames: case variants and repeated fields are refused with
// the line number, where encoding/json alone would accept them.
func TestJSONLFieldNames(t *testing.T) {
	for in, want := range map[string]string{
		`{"Key":"a","VALUE":"b"}`:           `"Key": names are case-sensitive, write "key"`,
		`{"key":"a","value":"b","key":"c"}`: `field "key" given twice`,
		`{"key":"a","value":"b","x":1}`:     `unknown field "x"`,
		`{"key":"a","Value_B64":"Yg=="}`:    `write "value_b64"`,
	} {
		src := NewJSONL(strings.NewReader("{\"key\":\"ok\",\"value\":\"1\"}\n"+in+"\n"), ValueType{})
		if _, _, _, err := src.Next(); err != nil {
			t.Fatalf("good line: %v", err)
		}
		_, _, line, err := src.Next()
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || line != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: line %d, err %v; want line 2 and %q", in, line, err, want)
		}
	}
	// Nested names are the value's business, not checked.
	src := NewJSONL(strings.NewReader(`{"key":"a","value":"{\"Key\":1}"}`), ValueType{})
	if k, v, _, err := src.Next(); err != nil || string(k) != "a" || fmt.Sprintf("%s", v) != `{"Key":1}` {
		t.Errorf("%q %q %v", k, v, err)
	}
}

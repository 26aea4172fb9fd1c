package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, r := range []*Result{runFixture("cpu"), gcFixture("cpu")} {
		r.Duration = Duration(83*time.Second + 250*time.Millisecond)
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `"duration": 83.25`) {
			t.Errorf("duration is not written in seconds:\n%.300s", buf.String())
		}
		got, err := ReadJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("%s result does not round-trip:\ngot  %+v\nwant %+v", r.Kind, got, r)
		}
	}
}

func TestReadJSONRefusesOtherSchemasAndTools(t *testing.T) {
	r := runFixture("cpu")
	r.Schema = SchemaVersion + 1
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSON(&buf); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Errorf("schema %d accepted: %v", r.Schema, err)
	}
	if _, err := ReadJSON(strings.NewReader(`{"tool":"other","schema":1}`)); err == nil || !strings.Contains(err.Error(), "not a cachebench result") {
		t.Errorf("foreign JSON accepted: %v", err)
	}
	if _, err := ReadJSON(strings.NewReader(`{"tool":"cachebench","schema":1,"duration":"x"}`)); err == nil {
		t.Error("bad duration accepted")
	}
}

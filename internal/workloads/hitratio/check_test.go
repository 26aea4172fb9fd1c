package hitratio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// FuzzLoad: whatever a --from file holds, Load returns a result whose
// rows pass Check (ratios in [0, 1], capacity fractions above 0) or an
// error; it never panics.
func FuzzLoad(f *testing.F) {
	f.Add(withSchema(`{"schema":SCHEMA,"kind":"hitratio","traces":[{"name":"t","rows":[{"adapter":"lru","fraction":0.1,"hit_ratio":0.5,"byte_hit_ratio":0.5,"requests":10,"hits":5}]}]}`))
	f.Add(withSchema(`{"schema":SCHEMA,"kind":"hitratio","traces":[{"name":"t","rows":[{"fraction":0,"hit_ratio":-3}]}]}`))
	f.Add(withSchema(`{"schema":SCHEMA,"kind":"hitratio"}{"schema":SCHEMA,"kind":"hitratio"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(context.Background(), p)
		if err != nil {
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("Load accepted a result that fails Check: %v", err)
		}
	})
}

// TestLoadRefusesImpossibleRows names the field and its line.
func TestLoadRefusesImpossibleRows(t *testing.T) {
	doc := string(withSchema("{\n\"schema\": SCHEMA,\n\"kind\": \"hitratio\",\n\"traces\": [{\"name\": \"t\", \"rows\": [\n{\"adapter\": \"lru\", \"fraction\": 0.1,\n\"hit_ratio\": -3}\n]}]\n}\n"))
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), p)
	var bad *report.BadValue
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "r.json:6:") || !strings.Contains(err.Error(), "hit_ratio") {
		t.Fatalf("hit ratio -3: %v, want a BadValue at r.json:6", err)
	}
}

// withSchema puts this package's result schema in place of SCHEMA.
func withSchema(doc string) []byte {
	return []byte(strings.ReplaceAll(doc, "SCHEMA", strconv.Itoa(Schema)))
}

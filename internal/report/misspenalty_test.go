package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// With a miss penalty the get-or-set table adds the time per request with
// misses included and ranks by it: a faster cache with fewer hits wins
// when misses are cheap, the one with more hits when they are dear.
func TestMissPenaltyColumn(t *testing.T) {
	order := func(penalty time.Duration) (string, string) {
		r := runFixture("cpu")
		r.MissPenalty = Duration(penalty)
		var b bytes.Buffer
		if err := WriteMarkdown(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i := strings.Index(out, "Get-or-set (a miss sets the key)")
		if i < 0 {
			t.Fatalf("no get-or-set table:\n%s", out)
		}
		table := out[i:]
		if o, f := strings.Index(table, "| otter"), strings.Index(table, "| fastcache"); o < f {
			return "otter", table
		}
		return "fastcache", table
	}
	// otter: 70% hits, ~813 ns/op; fastcache: 50% hits, ~610 ns/op.
	if first, table := order(0); first != "otter" || strings.Contains(table, "misses included") {
		t.Errorf("no penalty: %s first\n%s", first, table)
	}
	if first, table := order(100 * time.Nanosecond); first != "fastcache" || !strings.Contains(table, "Time per request, misses included") {
		t.Errorf("100ns penalty: %s first\n%s", first, table)
	}
	if first, _ := order(100 * time.Microsecond); first != "otter" {
		t.Errorf("100us penalty: %s first", first)
	}
}

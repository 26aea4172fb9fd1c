package fit

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheckAgainst(t *testing.T) {
	l := Limits{FreeDisk: 100 << 30, DiskKnown: true, Memory: 8 << 30, MemorySource: "MemAvailable", MemoryKnown: true}
	ok := Need{What: "x", Dir: "/tmp", Disk: 99 << 30, Memory: 8 << 30}
	if err := ok.CheckAgainst(l); err != nil {
		t.Errorf("fits: %v", err)
	}
	disk := Need{What: "trace gen", Dir: "/tmp", Disk: Mul(24, 999999999999), DiskDetail: "24 B per request"}
	err := disk.CheckAgainst(l)
	var tb *TooBigError
	if !errors.As(err, &tb) || tb.Resource != "disk" || tb.Limit != 100<<30 {
		t.Fatalf("disk: %v", err)
	}
	for _, want := range []string{"trace gen", "21.8 TiB", "100.0 GiB", "/tmp", "24 B per request"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	mem := Need{What: "gc-pause", Memory: 9 << 30}
	if err := mem.CheckAgainst(l); !errors.As(err, &tb) || tb.Resource != "memory" || !strings.Contains(err.Error(), "MemAvailable") {
		t.Errorf("memory: %v", err)
	}
	// Unknown limits check nothing.
	if err := mem.CheckAgainst(Limits{}); err != nil {
		t.Errorf("unknown limits: %v", err)
	}
}

func TestSaturating(t *testing.T) {
	if Mul(1<<40, 1<<40) != math.MaxInt64 || Mul(3, 4, 5) != 60 || Mul(0, math.MaxInt64) != 0 {
		t.Error("Mul")
	}
	if Add(math.MaxInt64, 1) != math.MaxInt64 || Add(1, 2) != 3 {
		t.Error("Add")
	}
}

func TestParseMemAvailable(t *testing.T) {
	n, ok := parseMemAvailable([]byte("MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   23936600 kB\n"))
	if !ok || n != 23936600*1024 {
		t.Errorf("%d %v", n, ok)
	}
	if _, ok := parseMemAvailable([]byte("MemTotal: 1 kB\n")); ok {
		t.Error("no MemAvailable line read as one")
	}
}

func TestCurrentReadsThisMachine(t *testing.T) {
	l := Current(t.TempDir())
	if !l.DiskKnown || l.FreeDisk <= 0 {
		t.Errorf("free disk of a temp dir: %+v", l)
	}
	if !l.MemoryKnown || l.Memory <= 0 {
		t.Errorf("memory: %+v", l)
	}
}

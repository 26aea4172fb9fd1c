package trace

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/ctxtest"
)

// TestGenerateCancelled: Ctrl-C during a generation stops it within a
// moment, leaves the old file as it was and no temp file.
func TestGenerateCancelled(t *testing.T) {
	for _, name := range []string{"t.oracleGeneral", "t.oracleGeneral.zst"} {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		err := Generate(ctx, GenConfig{Kind: "web", Requests: 1 << 40, Keys: 1000, Alpha: 1, Seed: 1, SizeMin: 1, SizeMax: 1}, p)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want context.Canceled", name, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: stopped after %v", name, el)
		}
		b, _ := os.ReadFile(p)
		ents, _ := os.ReadDir(dir)
		if string(b) != "old" || len(ents) != 1 {
			t.Errorf("%s: contents %q, %d files in the directory", name, b, len(ents))
		}
	}
}

// TestGenerateKeepsMode: a replaced trace keeps its permission bits.
func TestGenerateKeepsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.oracleGeneral")
	os.WriteFile(p, nil, 0o640)
	if err := Generate(context.Background(), GenConfig{Kind: "zipf", Requests: 100, Keys: 10, Alpha: 1, Seed: 1, SizeMin: 1, SizeMax: 1}, p); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode() != 0o640 || fi.Size() != 100*OracleRecordSize {
		t.Errorf("mode %v size %d", fi.Mode(), fi.Size())
	}
}

func TestGenEstimate(t *testing.T) {
	c := GenConfig{Kind: "zipf", Requests: 1_000_000, Keys: 100_000}
	disk, mem := c.Estimate(false)
	if disk != 24_000_000 || mem < 100_000*mapBytesPerObject {
		t.Errorf("zipf: disk %d mem %d", disk, mem)
	}
	if d2, _ := c.Estimate(true); d2 != 2*disk {
		t.Errorf("compressed: %d", d2)
	}
	// One-hit wonders are distinct objects too.
	c.Kind = "web"
	if _, m := c.Estimate(false); m < 400_000*mapBytesPerObject {
		t.Errorf("web: mem %d", m)
	}
	// The reproducer does not wrap.
	c.Requests = 999999999999
	if d, m := c.Estimate(true); d <= 0 || d < 24*999999999999 || m <= 0 {
		t.Errorf("huge: disk %d mem %d", d, m)
	}
	c.Requests = math.MaxInt64
	if d, _ := c.Estimate(true); d != math.MaxInt64 {
		t.Errorf("saturation: %d", d)
	}
}

// TestGenerateCancelledInSetup: a generation over many keys spends its
// first seconds on the popularity table and permutation (19 s at 200M
// keys); Ctrl-C there stops it at once and leaves no output. Each of the
// setup's passes over the keys looks at ctx every checkEvery keys, which
// bounds the work a cancel waits for; a cancel at any of those looks
// must end the generation there, with no further look.
func TestGenerateCancelledInSetup(t *testing.T) {
	const keys = 2 * checkEvery
	c := GenConfig{Kind: "zipf", Requests: 1000, Keys: keys, Alpha: 1, Seed: 1, SizeMin: 1, SizeMax: 1}
	full := ctxtest.New(math.MaxInt64)
	if _, err := newGenerator(full, c); err != nil {
		t.Fatal(err)
	}
	// The cdf, its normalization, the bucket table (as many buckets as
	// keys here), the identity permutation and the shuffle.
	const passes = 5
	looks := full.Looks()
	if want := int64(passes * keys / checkEvery); looks < want {
		t.Fatalf("the setup of %d keys looked at ctx %d times, want at least %d (one per %d keys of each pass)", keys, looks, want, checkEvery)
	}
	for at := int64(1); at <= looks; at++ {
		p := filepath.Join(t.TempDir(), "t.oracleGeneral")
		ctx := ctxtest.New(at - 1)
		err := Generate(ctx, c, p)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at look %d of %d: err = %v, want context.Canceled", at, looks, err)
		}
		if ctx.Looks() != at {
			t.Errorf("cancelled at look %d of %d: it went on to look %d", at, looks, ctx.Looks())
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("cancelled at look %d: output left: %v", at, err)
		}
	}
}

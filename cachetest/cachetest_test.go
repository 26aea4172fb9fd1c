package cachetest_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/cachebench/cachebench"
	"github.com/cachebench/cachebench/cachetest"
)

// fifo is a small correct adapter: a map bounded by Options.Entries,
// evicting the oldest key. The flaws of the broken variants below are
// switched on one at a time.
type fifo struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string
	limit int
	flaw  string
}

func newFIFO(flaw string) cachebench.Factory {
	return cachebench.Factory{
		Name: "fifo-" + flaw, Kind: cachebench.InMemory, Description: "test adapter",
		New: func(o cachebench.Options) (cachebench.Adapter, error) {
			return &fifo{m: map[string][]byte{}, limit: o.Entries, flaw: flaw}, nil
		},
	}
}

func (c *fifo) Name() string { return "fifo-" + c.flaw }

func (c *fifo) Set(key, val []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := string(key)
	if _, ok := c.m[k]; !ok {
		if c.flaw != "unbounded" && len(c.order) >= c.limit {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, k)
	}
	if c.flaw == "keeps-value" {
		c.m[k] = val // the caller's buffer, not a copy
	} else {
		c.m[k] = bytes.Clone(val)
	}
	return nil
}

func (c *fifo) Get(dst, key []byte) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[string(key)]
	if ok && c.flaw == "wrong-value" && string(key) == "key-0000042" {
		v = append(bytes.Clone(v[:len(v)-1]), '!')
	}
	return append(dst, v...), ok, nil
}

func (c *fifo) Close() error { return nil }

func (c *fifo) Config() map[string]string {
	return map[string]string{"budget": "Options.Entries entries", "eviction": "FIFO"}
}

func TestAdapterPasses(t *testing.T) {
	cachetest.TestAdapter(t, newFIFO("none"))
}

// TestAdapterFails runs the suite on broken adapters, each in a child
// test process (a failing suite fails its *testing.T, which cannot be
// observed from inside), and checks that each fails with a message naming
// the key and showing both values.
func TestAdapterFails(t *testing.T) {
	if flaw := os.Getenv("CACHETEST_FLAW"); flaw != "" {
		cachetest.TestAdapter(t, newFIFO(flaw))
		return
	}
	cases := map[string][]string{
		"wrong-value": {"WRONG VALUE for key \"key-0000042\"", `want 46 bytes`, `got 46 bytes`, `first difference at byte 45: want "xyzabcdef", got "xyzabcde!"`},
		"keeps-value": {"reused-value", "WRONG VALUE"},
		"unbounded":   {"holds 12000 entries", "more than either budget allows"},
	}
	for flaw, want := range cases {
		t.Run(flaw, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAdapterFails$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CACHETEST_FLAW="+flaw)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed an adapter with the flaw %q:\n%s", flaw, out)
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the failure does not say %q:\n%s", w, out)
				}
			}
		})
	}
}

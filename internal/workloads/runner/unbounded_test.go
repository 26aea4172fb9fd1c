package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// countedMap is testMap with a Len, so that the runner reads what it
// holds: it never evicts.
type countedMap struct{ testMap }

func (c *countedMap) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

func init() {
	newCounted := func(engine.Options) (engine.Adapter, error) {
		return &countedMap{testMap{m: map[string][]byte{}}}, nil
	}
	engine.Register(engine.Factory{Name: "test-unbounded", Kind: engine.InMemory, Description: "test only", Unbounded: true, New: newCounted})
	engine.Register(engine.Factory{Name: "test-overfull", Kind: engine.InMemory, Description: "test only", New: newCounted})
}

// TestUnboundedIsNotOverBudget checks the get-or-set marks of two
// adapters that both hold every key: the one that is unbounded by design
// is marked unbounded (and shown so in the table), the bounded one that
// holds more than its budget is flagged over budget.
func TestUnboundedIsNotOverBudget(t *testing.T) {
	cfg := baseConfig(t, []string{"test-unbounded", "test-overfull"}, "get-or-set/zipf")
	cfg.Procs, cfg.Count = []int{1}, 1
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	un := find(t, res, "test-unbounded", "get-or-set/zipf", report.PhaseGetOrSet, 1)
	if _, ok := un.Flag(report.FlagUnbounded); !ok {
		t.Errorf("unbounded adapter flags %v, want %s", un.Flags, report.FlagUnbounded)
	}
	if _, ok := un.Flag(report.FlagOverBudget); ok {
		t.Errorf("unbounded adapter flagged over budget: %v", un.Flags)
	}
	over := find(t, res, "test-overfull", "get-or-set/zipf", report.PhaseGetOrSet, 1)
	if _, ok := over.Flag(report.FlagOverBudget); !ok {
		t.Errorf("bounded adapter holding every key: flags %v, want %s", over.Flags, report.FlagOverBudget)
	}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| test-unbounded (unbounded) |", "unbounded (", "test-unbounded: unbounded, holds everything it is given, not comparable on hit ratio",
		"test-overfull ⚠ over budget"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "test-unbounded ⚠") {
		t.Errorf("the unbounded adapter is shown with a warning:\n%s", md.String())
	}
}

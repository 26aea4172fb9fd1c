package gcpause

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

// Params are the measurement parameters every child of a run shares. Their
// one set of rules is Params.Validate; its messages name the gc-pause flags.
type Params struct {
	// Entries is the number of entries written (keys 0..Entries-1).
	Entries int `json:"entries"`
	// ValueSize is the size of every value in bytes (≥ MinValueSize).
	ValueSize int `json:"value_size"`
	// GOGC is passed to debug.SetGCPercent before anything is measured;
	// -1 turns the collector off (forced collections still run).
	GOGC int `json:"gogc"`
	// Seed chooses the verified sample and the keys read during the GC.
	Seed uint64 `json:"seed"`
	// Verify is the number of random entries read back and checked after
	// the fill; when it is at least Entries, every entry is checked.
	Verify int `json:"verify"`
	// GCReads is the number of Gets that must fall inside forced GC cycles
	// (and outside them) before the read phase stops, unless GCReadTime
	// runs out first.
	GCReads int `json:"gc_reads"`
	// GCReadTime bounds the read phase; the result says when it, not
	// GCReads, ended the phase.
	GCReadTime time.Duration `json:"gc_read_time"`
}

// Defaults of the read phase.
const (
	DefaultGCReads    = 10_000
	DefaultGCReadTime = time.Minute
	// MaxGCReadTime bounds GCReadTime: a child is one process among
	// many in a run, and a read phase longer than this is a mistake.
	MaxGCReadTime = time.Hour
	// MaxVerify bounds Params.Verify.
	MaxVerify = 10_000_000
	// MaxGCReads bounds Params.GCReads.
	MaxGCReads = 100_000_000
	// MaxCount bounds Config.Count.
	MaxCount = 1000
)

// Validate checks the parameters, naming the flag at fault.
func (p Params) Validate() error {
	switch {
	case p.Entries < 1 || p.Entries > MaxEntries:
		return fmt.Errorf("--entries must be in 1..%d, got %d", MaxEntries, p.Entries)
	case p.ValueSize < MinValueSize || p.ValueSize > MaxValueSize:
		return fmt.Errorf("--value-size must be in %d..%d bytes (values carry a 16-byte index and check), got %d",
			MinValueSize, MaxValueSize, p.ValueSize)
	case p.GOGC < -1 || p.GOGC == 0:
		// GOGC=0 would run collections back to back during the whole
		// fill: a measurement of the collector, not of the cache.
		return fmt.Errorf("--gogc must be -1 (off) or a positive percentage, got %d", p.GOGC)
	case p.Verify < 0 || p.Verify > MaxVerify:
		return fmt.Errorf("--verify must be in 0..%d, got %d", MaxVerify, p.Verify)
	case p.GCReads < 1 || p.GCReads > MaxGCReads:
		return fmt.Errorf("--gc-reads must be in 1..%d, got %d", MaxGCReads, p.GCReads)
	case p.GCReadTime <= 0 || p.GCReadTime > MaxGCReadTime:
		return fmt.Errorf("--gc-read-time must be in (0, %v], got %v", MaxGCReadTime, p.GCReadTime)
	}
	return nil
}

// Budget returns the options the adapter is built with: the entry budget
// and the insert workloads' memory budget (workloads.MemoryBudget), so that
// nothing is evicted during the fill (evictions would show up as missing
// entries in the verified sample).
func (p Params) Budget() engine.Options {
	return engine.Options{
		Entries:      p.Entries,
		MemoryBytes:  workloads.MemoryBudget(p.Entries, float64(KeyLen+p.ValueSize), workloads.InsertHeadroom),
		MaxValueSize: p.ValueSize,
	}
}

// Config is what Measure runs.
type Config struct {
	Params
	// Adapters are measured in this order, each repetition in turn
	// (A B C A B C ...), so that drift of the machine hits all alike.
	Adapters []string
	// Count is the number of repetitions, each in a fresh child process.
	Count int
	// Progress, if set, is told how far the running child is: done of
	// total in the phase desc ("map #1/5 fill").
	Progress func(done, total int, desc string)
	// Log, if set, receives the run's header, every child's log lines
	// and one summary line per child.
	Log func(line string)
}

// Validate checks the configuration, naming the flag at fault.
func (c Config) Validate() error {
	if err := c.Params.Validate(); err != nil {
		return err
	}
	if c.Count < 1 || c.Count > MaxCount {
		return fmt.Errorf("--count must be in 1..%d, got %d", MaxCount, c.Count)
	}
	if len(c.Adapters) == 0 {
		return errors.New("--adapters selects no adapter")
	}
	for _, n := range c.Adapters {
		if err := checkAdapter(n); err != nil {
			return err
		}
	}
	return nil
}

// ChildConfig is what one child process measures. Measure builds it from
// a validated Config and hands it to the child (see ServeChild).
type ChildConfig struct {
	Params
	// Adapter is the registry name of the in-memory adapter to fill.
	Adapter string `json:"adapter"`
	// Repetition numbers the child among the repetitions of its adapter.
	Repetition int `json:"repetition"`
}

// Validate checks the configuration with the same rules as Config.
func (c ChildConfig) Validate() error {
	if err := c.Params.Validate(); err != nil {
		return err
	}
	if c.Repetition < 0 {
		return fmt.Errorf("gcpause: repetition must not be negative, got %d", c.Repetition)
	}
	return checkAdapter(c.Adapter)
}

// ResolveAdapters turns --adapters into in-memory adapter names with
// engine.Resolve, the one adapter resolver: empty means the "memory" group;
// a file store is refused by name.
func ResolveAdapters(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		list = engine.GroupMemory
	}
	fs, err := engine.Resolve(list)
	if err != nil {
		return nil, fmt.Errorf("--adapters: %w", err)
	}
	for _, f := range fs {
		if err := checkAdapter(f.Name); err != nil {
			return nil, err
		}
	}
	return engine.FactoryNames(fs), nil
}

// checkAdapter accepts a registered in-memory adapter.
func checkAdapter(name string) error {
	f, err := engine.Lookup(name)
	if err != nil {
		return fmt.Errorf("--adapters: %w", err)
	}
	if f.Kind != engine.InMemory {
		return fmt.Errorf("--adapters: %s is a %s adapter; gc-pause measures in-memory adapters (valid: %s)",
			name, f.Kind, strings.Join(inMemory(), ", "))
	}
	return nil
}

// inMemory lists the in-memory adapters a default run measures.
func inMemory() []string {
	var all []string
	for _, f := range engine.All() {
		if f.Kind == engine.InMemory && !f.TestOnly {
			all = append(all, f.Name)
		}
	}
	return all
}

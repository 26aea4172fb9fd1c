package gcpause

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// Methodology says, for each figure of a gc-pause result, how it is
// measured; it is written into every result's configuration.
var Methodology = map[string]string{
	"fill":           "adapter construction + every Set + Drain; includes generating each key and value into reused buffers (keygen_ns_per_entry)",
	"forced_gc":      "wall time of the second of two back-to-back runtime.GC() after the fill (the first finishes the fill's cycle and garbage)",
	"pauses":         "/sched/pauses/total/gc:seconds from before the fill to after the forced GC; max = upper bound of the highest non-empty bucket (up to 25% high), total from bucket midpoints (within 12.5%)",
	"gc_cpu":         "/cpu/classes/gc/total:cpu-seconds: cycles completed during the fill; the forced GC alone",
	"rss_per_entry":  "(VmHWM at the end − VmRSS before the adapter was built) / entries",
	"get_during_gc":  "Gets of random pre-generated keys from one reader goroutine, each timed, across repeated forced collections (runtime.GC, mark and sweep) separated by outside windows as long as the last collection (1 ms to 250 ms); a Get during which a forced collection ran counts as in GC",
	"get_outside_gc": "the same reader's Gets that overlapped no forced collection; collections the runtime started by itself are counted in gc_reads.background_cycles",
	"gc_reads":       "the reads stop once gc_reads Gets fell inside collections and as many outside, or after gc_read_time (gc_reads.time_bound says which)",
}

// newResult starts the result of a run of cfg: the machine, and the
// configuration with the methodology. It returns ctx's error if ctx is
// cancelled while it measures the key generation cost.
func newResult(ctx context.Context, cfg Config) (*report.Result, error) {
	keyGen, err := keyGenCost(ctx, cfg.Params)
	if err != nil {
		return nil, err
	}
	env := machine.Env()
	// The children set GOGC themselves; the parent's environment value
	// would mislead.
	env.GOGC = strconv.Itoa(cfg.GOGC)
	c := map[string]string{
		"adapters":             strings.Join(cfg.Adapters, ","),
		"entries":              strconv.Itoa(cfg.Entries),
		"value_size":           strconv.Itoa(cfg.ValueSize),
		"key_format":           "key_%d",
		"gogc":                 strconv.Itoa(cfg.GOGC),
		"count":                strconv.Itoa(cfg.Count),
		"seed":                 strconv.FormatUint(cfg.Seed, 10),
		"verify":               strconv.Itoa(cfg.Verify),
		"memory_budget_bytes":  strconv.FormatInt(cfg.Budget().MemoryBytes, 10),
		"entry_overhead_bytes": strconv.Itoa(workloads.EntryOverhead),
		"insert_headroom":      strconv.FormatFloat(workloads.InsertHeadroom, 'g', -1, 64),
		"keygen_ns_per_entry":  strconv.FormatFloat(keyGen, 'f', 1, 64),
		"child_gomaxprocs":     strconv.Itoa(runtime.GOMAXPROCS(0)),
		"gc_reads_target":      strconv.Itoa(cfg.GCReads),
		"gc_read_time":         cfg.GCReadTime.String(),
	}
	for k, v := range Methodology {
		c[k] = v
	}
	return &report.Result{
		Schema: report.SchemaVersion,
		Tool:   "cachebench",
		Kind:   report.KindGCPause,
		Env:    env,
		Config: c,
	}, nil
}

// keyGenBytes bounds the bytes keyGenCost writes: enough for a stable
// figure, small enough to take milliseconds whatever --value-size is (a
// million 1 MiB values would be a terabyte of writes before any child).
const keyGenBytes = 64 << 20

// keyGenCost measures, in this process, what generating one key and one
// value costs: the fill time includes it, and the result says how much.
// It times min(Entries, 1M, keyGenBytes / ValueSize, at least 64) entries
// into two reused buffers, looking at ctx every 256.
func keyGenCost(ctx context.Context, p Params) (float64, error) {
	n := min(p.Entries, 1_000_000, max(keyGenBytes/max(p.ValueSize, 1), 64))
	kbuf := make([]byte, KeyLen)
	vbuf := make([]byte, p.ValueSize)
	var sink byte
	start := time.Now()
	for i := 0; i < n; i++ {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		k := FormatKey(kbuf, uint64(i))
		FillValue(vbuf, uint64(i))
		sink ^= k[len(k)-1] ^ vbuf[len(vbuf)-1]
	}
	el := time.Since(start)
	runtime.KeepAlive(sink) // keeps the loop from being optimised away
	return float64(el.Nanoseconds()) / float64(n), nil
}

// fmtSecs renders seconds as a rounded duration.
func fmtSecs(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(100 * time.Nanosecond).String()
}

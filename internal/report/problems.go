package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// FlagName names a problem that taints a measurement's figures.
type FlagName string

// Measurement flags.
const (
	// FlagWrongValues: values read back differed from what was written.
	FlagWrongValues FlagName = "wrong-values"
	// FlagErrors: operations returned an error.
	FlagErrors FlagName = "errors"
	// FlagLostEntries: lookups missed keys that were all written
	// (insert-lookup and mixed), so the adapter lost entries.
	FlagLostEntries FlagName = "lost-entries"
	// FlagLossy marks an adapter that may drop entries by design.
	FlagLossy FlagName = "lossy"
	// FlagOverBudget: after the pass the adapter held more than its budget
	// allows (by more than 5%); its count is the percentage of the budget
	// held. Its hit ratio is not comparable and is not ranked.
	FlagOverBudget FlagName = "over-budget"
	// FlagSaturated: an open-loop pass achieved less than SaturatedBelow
	// of its offered rate in some repetition; its count is the lowest
	// achieved rate in percent of the offered one. Its latency is that of
	// an overloaded system falling behind, not of the rate offered.
	FlagSaturated FlagName = "saturated"
	// FlagUnbounded: an adapter that never evicts by design (map, syncmap)
	// held more than the budget the others were given. It is not a fault,
	// but its hit ratio is not comparable either: it is listed, not ranked.
	FlagUnbounded FlagName = "unbounded"
)

// Fails reports whether f says the adapter did not do what a cache must
// (wrong values, lost entries): run exits 1 when any measurement carries
// such a flag. The other flags describe a result, not a fault: errors
// counts Sets refused as too large for the cache (ErrEntryTooLarge, by
// design for a small freecache, bigcache or fastcache; any other error
// already fails the adapter's run), lossy and over budget mark figures
// that are not comparable, saturated an open loop that fell behind its
// rate, unbounded a map that never evicts. A flag name this version does
// not know fails, since it cannot be judged.
func (f Flag) Fails() bool {
	switch f.Name {
	case FlagErrors, FlagOverBudget, FlagLossy, FlagSaturated, FlagUnbounded:
		return false
	}
	return true
}

// FailingFlags lists, one string per measurement, the measurements of r
// with a flag that Fails ("map insert-lookup lookup procs=1: ⚠ wrong
// values: 3"), in result order.
func (r *Result) FailingFlags() []string {
	var out []string
	for _, m := range r.Measurements {
		var texts []string
		for _, f := range m.Flags {
			if f.Fails() {
				texts = append(texts, f.Text())
			}
		}
		if len(texts) > 0 {
			out = append(out, fmt.Sprintf("%s %s %s procs=%d: %s", m.Adapter, m.Workload, m.Phase, m.Procs, strings.Join(texts, ", ")))
		}
	}
	return out
}

// Flag is one problem of a measurement with its count (-1 when the problem
// has no count). In JSON a flag is the string "name:count" (or "name"), the
// form schema 1 has always used, so files written before the type existed
// read back unchanged.
type Flag struct {
	Name  FlagName
	Count int64
}

// CountedFlag returns the flag name with count n.
func CountedFlag(name FlagName, n int64) Flag { return Flag{Name: name, Count: n} }

// String is the JSON form, e.g. "wrong-values:3".
func (f Flag) String() string {
	if f.Count < 0 {
		return string(f.Name)
	}
	return string(f.Name) + ":" + strconv.FormatInt(f.Count, 10)
}

// Text renders f for a table cell, e.g. "⚠ wrong values: 3", so that a
// problem is visible next to the figures it taints.
func (f Flag) Text() string {
	if f.Name == FlagSaturated && f.Count >= 0 {
		return "⚠ saturated: achieved " + strconv.FormatInt(f.Count, 10) + "% of the offered rate"
	}
	if f.Name == FlagUnbounded {
		return "(unbounded)"
	}
	if f.Name == FlagOverBudget && f.Count >= 0 {
		return "⚠ over budget: holds " + strconv.FormatInt(f.Count, 10) + "% of it"
	}
	text := "⚠ " + strings.ReplaceAll(string(f.Name), "-", " ")
	if f.Count >= 0 {
		text += ": " + strconv.FormatInt(f.Count, 10)
	}
	return text
}

// MarshalJSON writes f as its string form.
func (f Flag) MarshalJSON() ([]byte, error) { return json.Marshal(f.String()) }

// UnmarshalJSON reads the string form.
func (f *Flag) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("flag: %w", err)
	}
	*f = parseFlag(s)
	return nil
}

// parseFlag reads "name:count"; a flag without a valid count has count -1.
func parseFlag(s string) Flag {
	name, n, ok := strings.Cut(s, ":")
	if ok {
		if c, err := strconv.ParseInt(n, 10, 64); err == nil {
			return Flag{Name: FlagName(name), Count: c}
		}
	}
	return Flag{Name: FlagName(s), Count: -1}
}

// FailureCode says at which step an adapter run failed. Codes are stable
// across runs (unlike messages, which hold temp paths and addresses), so
// `compare` recognises a recurring failure by its code.
type FailureCode string

// Failure codes.
const (
	FailScratchDir FailureCode = "scratch-dir" // creating the store's scratch directory
	FailNew        FailureCode = "new"         // constructing the adapter
	FailInsert     FailureCode = "insert"      // a Set, Freeze or drain of the insert pass
	FailPrefill    FailureCode = "prefill"     // the insert before a mixed pass
	FailReopen     FailureCode = "reopen"      // reopening a frozen store
	FailPageCache  FailureCode = "page-cache"  // dropping a store's pages before the cold pass
	FailClose      FailureCode = "close"       // closing the adapter
	// FailOps: operations of a lookup, mixed or get-or-set pass failed for
	// another reason than an entry refused for its size (a server killed
	// mid-pass, a timeout); the pass is not recorded, so no hit ratio is
	// shown for it.
	FailOps   FailureCode = "operations"
	FailOther FailureCode = "other" // anything else, and failures read from old files
)

// Failure is one adapter run that failed; the run goes on with the others.
type Failure struct {
	Code     FailureCode `json:"code"`
	Adapter  string      `json:"adapter"`
	Workload string      `json:"workload,omitempty"`
	Procs    int         `json:"procs,omitempty"`
	// Message is the error text; it may hold paths that differ per run.
	Message string `json:"message"`
}

// String renders f as one line, e.g.
// "lmdb: insert-lookup procs=1: new: mdb_env_open: no space left".
func (f Failure) String() string {
	if f.Workload == "" {
		return f.Adapter + ": " + f.Message
	}
	return fmt.Sprintf("%s: %s procs=%d: %s", f.Adapter, f.Workload, f.Procs, f.Message)
}

// Key identifies a failure across runs: the same code for the same adapter,
// workload and GOMAXPROCS is the same failure whatever its message says.
func (f Failure) Key() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s", f.Adapter, f.Workload, f.Procs, f.Code)
}

// legacyFailure matches the plain string schema-1 files held before
// failures had codes: "adapter: workload procs=N: message".
var legacyFailure = regexp.MustCompile(`^([^:]+): (\S+) procs=(\d+): (.*)$`)

// UnmarshalJSON reads a failure object, or the plain string of files
// written before failures had codes (code "other").
func (f *Failure) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = legacyFailureText(s)
		return nil
	}
	type plain Failure
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("failure: %w", err)
	}
	*f = Failure(p)
	return nil
}

// legacyFailureText turns a failure line into a Failure with code "other".
func legacyFailureText(s string) Failure {
	if m := legacyFailure.FindStringSubmatch(s); m != nil {
		procs, _ := strconv.Atoi(m[3])
		return Failure{Code: FailOther, Adapter: m[1], Workload: m[2], Procs: procs, Message: m[4]}
	}
	adapter, msg, _ := strings.Cut(s, ": ")
	return Failure{Code: FailOther, Adapter: adapter, Message: msg}
}

package compare

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// ErrIncomplete is wrapped by the errors of CheckComplete and
// Report.CheckComparable: a comparison that would read as "no
// regressions" only because something it should compare is missing.
var ErrIncomplete = errors.New("not a comparison of complete results")

// CheckComplete refuses a pair of results that cannot be compared as two
// complete runs: either side interrupted (its missing measurements would
// simply not be compared), or an adapter of OLD that NEW neither measured
// nor recorded as failed (a cache that was left out cannot regress).
// Adapters named in opt.Absolute (the harness floor) are not required.
func CheckComplete(oldRes, newRes *report.Result, opt Options) error {
	var why []string
	for _, side := range []struct {
		name string
		r    *report.Result
	}{{"OLD", oldRes}, {"NEW", newRes}} {
		if side.r.Interrupted {
			during := ""
			if side.r.InterruptedDuring != "" {
				during = " during " + side.r.InterruptedDuring
			}
			why = append(why, fmt.Sprintf("%s is an interrupted run (cancelled%s): it holds only what was measured before", side.name, during))
		}
	}
	oldA, newA := adaptersOf(oldRes), adaptersOf(newRes)
	for _, e := range newRes.Errors {
		newA[e.Adapter] = true
	}
	var missing []string
	for a := range oldA {
		if !newA[a] && !slices.Contains(opt.Absolute, a) {
			missing = append(missing, a)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		why = append(why, fmt.Sprintf("NEW lacks adapters OLD measured: %s", strings.Join(missing, ", ")))
	}
	if len(why) > 0 {
		return fmt.Errorf("%w: %s", ErrIncomplete, strings.Join(why, "; "))
	}
	return nil
}

// adaptersOf is the set of adapters a result measured.
func adaptersOf(r *report.Result) map[string]bool {
	a := map[string]bool{}
	for _, m := range r.Measurements {
		a[m.Adapter] = true
	}
	for _, g := range r.GCPause {
		a[g.Adapter] = true
	}
	return a
}

// CheckComparable refuses a report whose rows compare nothing but the
// adapters of Options.Absolute (the harness floor): two runs of disjoint
// adapter sets share only the floor, and "0 regressions" would then say
// nothing about any cache.
func (r *Report) CheckComparable() error {
	if len(r.Options.Absolute) == 0 {
		return nil
	}
	for _, row := range r.Rows {
		if !slices.Contains(r.Options.Absolute, row.Key.Adapter) {
			return nil
		}
	}
	return fmt.Errorf("%w: OLD and NEW share no adapter but %s, the harness floor: nothing about a cache was compared", ErrIncomplete, strings.Join(r.Options.Absolute, ", "))
}

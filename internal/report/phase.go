package report

import (
	"strings"
	"unicode"
)

// phaseNames is the one table of the phases cachebench measures and
// their benchmark names in the gobench format, in the order tables show
// them.
var phaseNames = []struct {
	phase Phase
	bench string
}{
	{PhaseInsert, "Insert"},
	{PhaseLookup, "Lookup"},
	{PhaseMixed, "Mixed"},
	{PhaseGetOrSet, "GetOrSet"},
	{PhaseLookupCold, "LookupCold"},
	{PhaseOpen, "Open"},
	{PhaseLookupBatch, "LookupBatch"},
}

// Known reports whether p is one of the phases this version measures
// (a result from a newer version may hold others; tables still show
// them).
func (p Phase) Known() bool {
	for _, n := range phaseNames {
		if n.phase == p {
			return true
		}
	}
	return false
}

// BenchName is p's benchmark base name in the gobench format: GetOrSet
// for get-or-set. A phase this version does not know is written in
// CamelCase by the same rule, so that it still reads back.
func (p Phase) BenchName() string {
	for _, n := range phaseNames {
		if n.phase == p {
			return n.bench
		}
	}
	var b strings.Builder
	for _, w := range strings.Split(string(p), "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	if b.Len() == 0 {
		return "Unknown"
	}
	return b.String()
}

// PhaseOfBench is the inverse of Phase.BenchName. The base name of a
// benchmark cachebench did not write (BenchmarkGet) becomes a phase by
// the same rule: get.
func PhaseOfBench(base string) Phase {
	for _, n := range phaseNames {
		if n.bench == base {
			return n.phase
		}
	}
	var b strings.Builder
	for i, r := range base {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return Phase(b.String())
}

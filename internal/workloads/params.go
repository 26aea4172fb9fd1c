package workloads

import (
	"fmt"
	"strings"
)

// Params are the workload settings a command line gives once for every
// workload of a run; Specs applies them to each named workload's defaults.
type Params struct {
	// Keys is the size of the key space; Ops the operations of a mixed or
	// get-or-set pass (0: Keys).
	Keys, Ops int
	Seed      uint64
	// ValueSize is "N" or "MIN-MAX" bytes; "" keeps each workload's default.
	ValueSize           string
	HotKeys, HotAccess  float64
	ZipfS               float64
	ReadRatio, Capacity float64
}

// Specs returns one validated spec per name of the comma-separated list,
// each a DefaultSpec with p applied. Errors name the flag at fault
// (--workload, --keys, ...) since they are shown to the user as they are.
func Specs(list string, p Params) ([]Spec, error) {
	var specs []Spec
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		s, err := DefaultSpec(name)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		s.Keys, s.Seed, s.Ops = p.Keys, p.Seed, p.Ops
		if s.Ops == 0 {
			s.Ops = p.Keys
		}
		s.HotKeys, s.HotAccess, s.ZipfS = p.HotKeys, p.HotAccess, p.ZipfS
		s.ReadRatio, s.Capacity = p.ReadRatio, p.Capacity
		if p.ValueSize != "" {
			if s.ValueMin, s.ValueMax, err = ParseValueSize(p.ValueSize); err != nil {
				return nil, err
			}
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("--workload selects no workload (valid: %s)", strings.Join(Names(), ", "))
	}
	return specs, nil
}

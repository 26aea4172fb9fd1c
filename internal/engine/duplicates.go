package engine

// DuplicatePolicy is what a write-once store does with a key Set twice
// before Freeze. Mutable adapters always keep the last value and need not
// say so.
type DuplicatePolicy int8

// Duplicate policies.
const (
	// FirstWins: Get returns the value of the first Set (CDB stores every
	// record and its lookup stops at the first).
	FirstWins DuplicatePolicy = iota + 1
	// LastWins: Get returns the value of the last Set.
	LastWins
)

// String names the policy as results and errors show it.
func (p DuplicatePolicy) String() string {
	switch p {
	case FirstWins:
		return "first wins"
	case LastWins:
		return "last wins"
	}
	return "undeclared"
}

// DuplicateKeyer is implemented by write-once stores (Freezer) to declare
// their DuplicatePolicy, which the conformance suite checks. The
// Config()["duplicates"] text says the same for people and may be
// reworded freely; nothing parses it.
type DuplicateKeyer interface {
	DuplicatePolicy() DuplicatePolicy
}

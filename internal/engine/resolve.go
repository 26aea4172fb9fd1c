package engine

import (
	"fmt"
	"strings"

	"github.com/cachebench/cachebench/internal/parse"
)

// Adapter groups accepted by Resolve besides adapter names. A group never
// includes test-only adapters (Factory.TestOnly): those must be named.
const (
	GroupMemory = "memory"
	GroupFile   = "file"
	GroupAll    = "all"
	// GroupNetwork selects the network adapters. "all" leaves them out:
	// they start servers (or need addresses) and must be asked for.
	GroupNetwork = "network"
)

// groupKinds maps each group name ("files" is an alias of "file") to the
// kinds it selects, in the order they are listed.
var groupKinds = map[string][]Kind{
	GroupMemory:  {InMemory},
	GroupFile:    {FileStore},
	"files":      {FileStore},
	GroupAll:     {InMemory, FileStore},
	GroupNetwork: {Network},
}

// Resolve turns a comma-separated list of adapter names and groups
// ("memory", "file", "all", "network") into factories, in the order given, each once.
// Every command that selects adapters goes through it, so that a name means
// the same thing everywhere. An unknown name is an error wrapping
// ErrUnknownAdapter that lists the valid names; a list that selects nothing
// is an error too.
func Resolve(list string) ([]Factory, error) {
	var out []Factory
	seen := map[string]bool{}
	add := func(f Factory) {
		if !seen[f.Name] {
			seen[f.Name] = true
			out = append(out, f)
		}
	}
	items, err := parse.List(list)
	if err != nil {
		return nil, err
	}
	for _, n := range items {
		if kinds, ok := groupKinds[n]; ok {
			for _, k := range kinds {
				for _, f := range All() {
					if f.Kind == k && !f.TestOnly {
						add(f)
					}
				}
			}
			continue
		}
		f, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		add(f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("selects no adapter (valid: %s; groups: %s, %s, %s, %s)",
			strings.Join(Names(""), ", "), GroupMemory, GroupFile, GroupAll, GroupNetwork)
	}
	return out, nil
}

// FactoryNames returns the names of fs, in order.
func FactoryNames(fs []Factory) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names
}

package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// jsonlFields are the names a JSONL object may hold, spelled exactly.
var jsonlFields = []string{"key", "value", "key_b64", "value_b64"}

// checkFields refuses a JSON object whose top-level names are not among
// names exactly as spelled, or that repeats one. encoding/json matches
// names case-insensitively ({"KEY": ...} would be read as "key") and lets
// the last of two equal names win, so a line that means something else
// than it says would be stored without a word. A line that is not an
// object is left to the decoder to refuse.
func checkFields(line []byte, names []string) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	seen := make([]string, 0, len(names))
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		name, ok := t.(string)
		if !ok {
			return nil
		}
		switch {
		case slices.Contains(seen, name):
			return fmt.Errorf("field %q given twice", name)
		case !slices.Contains(names, name):
			for _, n := range names {
				if strings.EqualFold(n, name) {
					return fmt.Errorf("field %q: names are case-sensitive, write %q", name, n)
				}
			}
			return fmt.Errorf("unknown field %q (valid: %s)", name, strings.Join(names, ", "))
		}
		seen = append(seen, name)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

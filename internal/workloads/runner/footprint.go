package runner

import (
	"fmt"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// footprint copies what an adapter says it holds against its limit into
// s, read after the timed pass (a network adapter asks its servers, which
// costs round trips that must not be timed).
func footprint(a engine.Adapter, s *report.Sample) error {
	fp, ok := a.(engine.Footprinter)
	if !ok {
		return nil
	}
	f, err := fp.Footprint()
	if err != nil {
		return fmt.Errorf("%s: memory footprint: %w", a.Name(), err)
	}
	s.HeldBytes, s.LimitBytes, s.RSSBytes = f.HeldBytes, f.LimitBytes, f.RSSBytes
	return nil
}

// durationNote says that a pass was bounded by Config.Duration.
func durationNote(cfg *Config) string {
	if cfg.Duration <= 0 {
		return ""
	}
	return "; each pass stopped after " + cfg.Duration.String() + " at most (operations counted as run)"
}

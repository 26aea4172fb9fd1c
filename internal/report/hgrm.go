package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The .hgrm export (run --hgrm): every open-loop measurement's corrected
// and uncorrected histograms, its repetitions merged, in the percentile
// distribution format HdrHistogram's tools print and its plotter
// (HdrHistogram's plotFiles.html) reads: values in milliseconds, five
// ticks per half distance, the format of Java's outputPercentileDistribution.

// hgrmTicks is the percentile ticks per half distance to 100%.
const hgrmTicks = 5

// hgrmScale turns the histograms' nanoseconds into the milliseconds the
// plotter labels its axis with.
const hgrmScale = 1e6

// HistLatency is the summary of a latency histogram (nanoseconds) that
// results hold: its count, p50, p99, p99.9 and max; zero when empty. The
// drivers all summarise their histograms through it.
func HistLatency(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Samples: h.TotalCount(),
		P50:     float64(h.ValueAtQuantile(50)),
		P99:     float64(h.ValueAtQuantile(99)),
		P999:    float64(h.ValueAtQuantile(99.9)),
		Max:     float64(h.Max()),
	}
}

// Slug turns a name into a file-name part: letters, digits, '-' and '_'
// kept, everything else (dots, slashes, spaces) a '-'.
func Slug(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, name)
}

// HgrmName is the file stem of an open-loop measurement's histograms:
// workload, phase, adapter, GOMAXPROCS and offered rate.
func HgrmName(m *Measurement) string {
	return Slug(fmt.Sprintf("%s-%s-%s-procs%d-rate%s", m.Workload, m.Phase, m.Adapter, m.Procs,
		strconv.FormatFloat(m.Rate, 'f', -1, 64)))
}

// WriteHgrm writes STEM-corrected.hgrm and STEM-uncorrected.hgrm
// (HgrmName) into dir for every open-loop measurement of r, each file
// atomically, and returns the files written. A measurement whose
// histograms were not recorded is an error naming it.
func WriteHgrm(dir string, r *Result) ([]string, error) {
	var files []string
	for i := range r.Measurements {
		m := &r.Measurements[i]
		if m.Rate <= 0 {
			continue
		}
		for _, kind := range []string{"corrected", "uncorrected"} {
			h, err := mergedHist(m, kind == "corrected")
			if err != nil {
				return files, err
			}
			path := filepath.Join(dir, HgrmName(m)+"-"+kind+".hgrm")
			err = WriteFileAtomic(path, func(w io.Writer) error {
				_, err := h.PercentilesPrint(w, hgrmTicks, hgrmScale)
				return err
			})
			if err != nil {
				return files, fmt.Errorf("write %s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// mergedHist decodes and merges the corrected (or uncorrected)
// histograms of m's repetitions.
func mergedHist(m *Measurement, corrected bool) (*hdrhistogram.Histogram, error) {
	var out *hdrhistogram.Histogram
	for j, s := range m.Samples {
		if s.Open == nil {
			continue
		}
		enc := s.Open.UncorrectedHist
		if corrected {
			enc = s.Open.CorrectedHist
		}
		if enc == "" {
			return nil, fmt.Errorf("%s %s %s at %v/s, repetition %d: no histogram recorded", m.Adapter, m.Workload, m.Phase, m.Rate, j+1)
		}
		h, err := hdrhistogram.Decode([]byte(enc))
		if err != nil {
			return nil, fmt.Errorf("%s %s %s at %v/s, repetition %d: histogram: %w", m.Adapter, m.Workload, m.Phase, m.Rate, j+1, err)
		}
		if out == nil {
			out = h
		} else {
			out.Merge(h)
		}
	}
	if out == nil {
		return nil, fmt.Errorf("%s %s %s at %v/s: no open-loop repetition", m.Adapter, m.Workload, m.Phase, m.Rate)
	}
	return out, nil
}

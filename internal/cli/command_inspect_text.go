package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// inspectReport is the JSON document of `inspect --format json`.
type inspectReport struct {
	Path   string           `json:"path"`
	Header mmapstore.Header `json:"header"`
	Check  *checkResult     `json:"check"`
	Stats  *mmapstore.Stats `json:"stats,omitempty"`
	Verify *checkResult     `json:"verify,omitempty"`
	Gets   []getResult      `json:"gets,omitempty"`
	Keys   []string         `json:"keys,omitempty"`
	Error  string           `json:"error,omitempty"`
}

// checkResult is the outcome of the sampled check or of --verify.
type checkResult struct {
	OK      bool   `json:"ok"`
	Buckets int    `json:"buckets,omitempty"` // buckets sampled
	Error   string `json:"error,omitempty"`
}

// getResult is one --get. Value is the JSON value of the stored type
// (mmapstore.Value.MarshalJSON): a string for bytes and strings, a
// number, a boolean or an array.
type getResult struct {
	Key   string          `json:"key"`
	Found bool            `json:"found"`
	Type  string          `json:"type,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`

	val mmapstore.Value // for the text output
}

func writeInspectText(w io.Writer, rep *inspectReport) error {
	if err := writeInspectHeader(w, rep); err != nil {
		return err
	}
	if st := rep.Stats; st != nil {
		writeHistogram(w, "probe lengths (buckets)", &st.ProbeLengths)
		writeHistogram(w, "entries per bucket", &st.BucketEntries)
		writeTypeMix(w, &st.Types)
		writeHistogram(w, "key sizes (bytes)", &st.KeySizes)
		writeHistogram(w, "value sizes (bytes)", &st.ValueSizes)
	}
	for _, g := range rep.Gets {
		switch {
		case g.Error != "":
			fmt.Fprintf(w, "get %s: FAILED: %s\n", strconv.Quote(g.Key), g.Error)
		case g.Found && g.val.Type() == mmapstore.TypeBytes:
			fmt.Fprintf(w, "get %s = %s\n", strconv.Quote(g.Key), g.val)
		case g.Found:
			fmt.Fprintf(w, "get %s (%v) = %s\n", strconv.Quote(g.Key), g.val.Type(), g.val)
		default:
			fmt.Fprintf(w, "get %s: not found\n", strconv.Quote(g.Key))
		}
	}
	if rep.Keys != nil {
		fmt.Fprintln(w, "\nkeys")
		for _, k := range rep.Keys {
			fmt.Fprintf(w, "  %s\n", strconv.Quote(k))
		}
	}
	if rep.Error != "" {
		fmt.Fprintf(w, "\nerror: %s\n", rep.Error)
	}
	return nil
}

// writeInspectHeader prints the header fields, the checks and the totals
// of the statistics as aligned "name  value" lines.
func writeInspectHeader(w io.Writer, rep *inspectReport) error {
	h := &rep.Header
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	flags := "none"
	if h.Flags&mmapstore.FlagDedup != 0 {
		flags = "dedup"
	}
	fmt.Fprintf(tw, "file\t%s\n", rep.Path)
	fmt.Fprintf(tw, "format\tcachebench store, version %d\n", h.Version)
	fmt.Fprintf(tw, "size\t%d bytes (%.1f B/entry)\n", h.FileSize, float64(h.FileSize)/float64(max(h.Entries, 1)))
	fmt.Fprintf(tw, "hash\tid %d (cb1), seed %#016x\n", h.HashID, h.Seed)
	fmt.Fprintf(tw, "flags\t%s\n", flags)
	fmt.Fprintf(tw, "entries\t%d\n", h.Entries)
	fmt.Fprintf(tw, "records\t%d in the records section\n", h.Records)
	fmt.Fprintf(tw, "buckets\t%d home buckets and %d after them, 128 bytes each\n", h.Buckets, h.IndexLength/128-h.Buckets)
	fmt.Fprintf(tw, "max probe\t%d buckets\n", h.MaxProbe)
	fmt.Fprintf(tw, "records section\toffset %d, %d bytes\n", h.RecordsOffset, h.RecordsLength)
	fmt.Fprintf(tw, "index section\toffset %d, %d bytes\n", h.IndexOffset, h.IndexLength)
	fmt.Fprintf(tw, "block table\toffset %d, one checksum per %d-byte block, checksum %#016x\n", h.BlockTableOff, 1<<h.BlockShift, h.BlockTableSum)
	fmt.Fprintf(tw, "header checksum\t%#016x\n", h.HeaderChecksum)
	writeCheck(tw, "sample", rep.Check, fmt.Sprintf("%d buckets, their blocks and lookups", rep.Check.Buckets))
	writeCheck(tw, "verify", rep.Verify, "checksums, every record and bucket")
	if st := rep.Stats; st != nil {
		fmt.Fprintf(tw, "bucket fill\t%.3f of the entry bytes\n", st.LoadFactor)
		fmt.Fprintf(tw, "inline\t%d keys in their bucket, %d in the records section (%d dead records)\n", st.Inline, st.OutOfLine, st.DeadRecords)
		fmt.Fprintf(tw, "overflowing\t%d buckets\n", st.OverflowBuckets)
		fmt.Fprintf(tw, "mean probe\t%.3f buckets\n", st.MeanProbe)
		fmt.Fprintf(tw, "keys\t%d bytes\n", st.KeyBytes)
		fmt.Fprintf(tw, "values\t%d bytes\n", st.ValueBytes)
		fmt.Fprintf(tw, "dedup\t%d references, %d bytes saved\n", st.DedupRefs, st.DedupSavedBytes)
	}
	return tw.Flush()
}

// writeCheck prints one check's outcome, if it ran.
func writeCheck(w io.Writer, name string, c *checkResult, what string) {
	switch {
	case c == nil:
	case c.OK:
		fmt.Fprintf(w, "%s\tok (%s)\n", name, what)
	default:
		fmt.Fprintf(w, "%s\tFAILED: %s\n", name, c.Error)
	}
}

// writeTypeMix prints how many entries hold each value type.
func writeTypeMix(w io.Writer, m *mmapstore.TypeMix) {
	fmt.Fprintf(w, "\nvalue types\n")
	var total uint64
	for _, n := range m {
		total += n
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, t := range mmapstore.Types() {
		if n := m[t]; n > 0 {
			fmt.Fprintf(tw, "  %v\t%d\t%5.1f%%\t\n", t, n, 100*float64(n)/float64(total))
		}
	}
	if total == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	tw.Flush()
}

// writeHistogram prints the non-empty buckets with a bar scaled to the
// largest one.
func writeHistogram(w io.Writer, title string, h *mmapstore.Histogram) {
	fmt.Fprintf(w, "\n%s\n", title)
	b := h.Buckets()
	if len(b) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	var top, total uint64
	for _, x := range b {
		top, total = max(top, x.Count), total+x.Count
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, x := range b {
		rng := strconv.FormatUint(x.Min, 10)
		if x.Max != x.Min {
			rng += "–" + strconv.FormatUint(x.Max, 10)
		}
		bar := strings.Repeat("#", int((x.Count*40+top-1)/top))
		fmt.Fprintf(tw, "  %s\t%d\t%5.1f%%\t %s\n", rng, x.Count, 100*float64(x.Count)/float64(total), bar)
	}
	tw.Flush()
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

type inspectOpts struct {
	verify bool
	gets   []string
	keys   int
	format string
}

func newInspectCmd() *cobra.Command {
	var o inspectOpts
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show the header, index and size statistics of a cachebench store file",
		Long: `inspect prints a store file's header fields, entries and slots, load factor,
probe-length histogram, key and value size histograms, dedup savings and
section checksums. --verify also checks both section checksums and every
record and slot. A file that is not a cachebench store, or a corrupt one,
exits with status 2.`,
		Example: `  cachebench inspect data.cache
  cachebench inspect --verify data.cache
  cachebench inspect --get key_42 --get key_43 data.cache
  cachebench inspect --keys 10 --format json data.cache`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runInspect(cmd, args[0], &o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.verify, "verify", false, "check the checksums and every record and slot")
	f.StringArrayVar(&o.gets, "get", nil, "look KEY up and print its value (repeatable)")
	f.IntVar(&o.keys, "keys", 0, "list the first N keys in file order")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	return cmd
}

// inspectReport is the JSON document of `inspect --format json`.
type inspectReport struct {
	Stats  mmapstore.Stats `json:"stats"`
	Verify *verifyResult   `json:"verify,omitempty"`
	Gets   []getResult     `json:"gets,omitempty"`
	Keys   []string        `json:"keys,omitempty"`
	Error  string          `json:"error,omitempty"`
}

type verifyResult struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

type getResult struct {
	Key   string `json:"key"`
	Found bool   `json:"found"`
	Value string `json:"value,omitempty"`
}

func runInspect(cmd *cobra.Command, path string, o *inspectOpts) error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("inspect: unknown --format %q (valid: text, json)", o.format)
	}
	if o.keys < 0 {
		return usageErrorf("inspect: --keys must not be negative, got %d", o.keys)
	}
	s, err := mmapstore.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || isStoreFileError(err) {
			return usageErrorf("%w", err)
		}
		return err
	}
	defer s.Close()
	var rep inspectReport
	var failure error
	rep.Stats, err = s.Inspect()
	if err != nil {
		failure = err
		rep.Error = err.Error()
	}
	if o.verify {
		rep.Verify = &verifyResult{OK: true}
		if err := s.Verify(); err != nil {
			rep.Verify = &verifyResult{Error: err.Error()}
			failure = errors.Join(failure, err)
		}
	}
	for _, k := range o.gets {
		v, ok := s.Get([]byte(k))
		rep.Gets = append(rep.Gets, getResult{Key: k, Found: ok, Value: string(v)})
	}
	if o.keys > 0 {
		rep.Keys = []string{}
		for k := range s.All() {
			if len(rep.Keys) == o.keys {
				break
			}
			rep.Keys = append(rep.Keys, string(k))
		}
	}
	w := cmd.OutOrStdout()
	if o.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&rep); err != nil {
			return err
		}
	} else if err := writeInspectText(w, &rep); err != nil {
		return err
	}
	if failure != nil {
		// A corrupt file is bad input: exit 2.
		return usageErrorf("%w", failure)
	}
	return nil
}

func isStoreFileError(err error) bool {
	for _, e := range []error{mmapstore.ErrNotCachebench, mmapstore.ErrVersion, mmapstore.ErrCorrupt, mmapstore.ErrChecksum} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func writeInspectText(w io.Writer, rep *inspectReport) error {
	st, h := &rep.Stats, &rep.Stats.Header
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	flags := "none"
	if h.Flags&mmapstore.FlagDedup != 0 {
		flags = "dedup"
	}
	fmt.Fprintf(tw, "file\t%s\n", st.Path)
	fmt.Fprintf(tw, "format\tcachebench store, version %d\n", h.Version)
	fmt.Fprintf(tw, "size\t%d bytes (%.1f B/entry)\n", h.FileSize, st.BytesPerEntry)
	fmt.Fprintf(tw, "hash\tid %d (cb1), seed %#016x\n", h.HashID, h.Seed)
	fmt.Fprintf(tw, "flags\t%s\n", flags)
	fmt.Fprintf(tw, "entries\t%d\n", st.Entries)
	fmt.Fprintf(tw, "records\t%d (%d dead)\n", st.Records, st.DeadRecords)
	fmt.Fprintf(tw, "slots\t%d (load factor %.3f)\n", st.Slots, st.LoadFactor)
	fmt.Fprintf(tw, "max probe\t%d (mean %.3f)\n", h.MaxProbe, st.MeanProbe)
	fmt.Fprintf(tw, "keys\t%d bytes\n", st.KeyBytes)
	fmt.Fprintf(tw, "values\t%d bytes\n", st.ValueBytes)
	fmt.Fprintf(tw, "dedup\t%d references, %d bytes saved\n", st.DedupRefs, st.DedupSavedBytes)
	fmt.Fprintf(tw, "records section\toffset %d, %d bytes, checksum %#016x\n", h.RecordsOffset, h.RecordsLength, h.RecordsChecksum)
	fmt.Fprintf(tw, "index section\toffset %d, %d bytes, checksum %#016x\n", h.IndexOffset, h.IndexLength, h.IndexChecksum)
	fmt.Fprintf(tw, "header checksum\t%#016x\n", h.HeaderChecksum)
	if rep.Verify != nil {
		if rep.Verify.OK {
			fmt.Fprintf(tw, "verify\tok (checksums, every record and slot)\n")
		} else {
			fmt.Fprintf(tw, "verify\tFAILED: %s\n", rep.Verify.Error)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, hist := range []struct {
		title string
		h     *mmapstore.Histogram
	}{{"probe lengths (slots)", &st.ProbeLengths}, {"key sizes (bytes)", &st.KeySizes}, {"value sizes (bytes)", &st.ValueSizes}} {
		writeHistogram(w, hist.title, hist.h)
	}
	for _, g := range rep.Gets {
		if g.Found {
			fmt.Fprintf(w, "get %s = %s\n", strconv.Quote(g.Key), strconv.Quote(g.Value))
		} else {
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

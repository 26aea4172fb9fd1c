package cli

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

type inspectOpts struct {
	verify, stats bool
	gets          []string
	list          int
	format        string
}

func newInspectCmd() *cobra.Command {
	var o inspectOpts
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show the header, index and size statistics of a cachebench store file",
		Long: `inspect maps a store file and reads only what each part of its output needs.

Always: the header (its checksum and every field against the file's size),
then a sample of ` + strconv.Itoa(sampleBuckets) + ` buckets spread over the index: a lookup of each key there must end there, and the index blocks
it passed and the record's bytes up to the end of its key must match their
checksums (out-of-line values are not read). A header edited and re-checksummed fails these
checks, because every block checksum is keyed by the header. This costs
the same on any file size; it is a sample, not a proof (see --verify).
--get KEY  looks KEY up checking the checksum of every block it reads: a
           value is printed only if its bytes are intact, with its type
           (text: get "k" (float64) = 0.5, bytes without a type; JSON:
           "type" and the value as a JSON string, number, bool or array).
--list N   lists the first N keys in index order, which is hash order, not
           the order they were added, each bucket checked as a sample.
--stats    walks every record and bucket: bucket fill, inline and
           out-of-line counts, the value types, probe-length, entries-per-bucket, key and
           value size histograms and dedup savings (reads the whole file).
--verify   checks every block checksum, record and bucket (reads the whole
           file, streaming) and prints the statistics too.
A file that is not a cachebench store, a store of another format version
(rebuild it with this version's build) or a corrupt one exits 2.`,
		Example: `  cachebench inspect data.cache
  cachebench inspect --verify data.cache
  cachebench inspect --get key_42 --get key_43 data.cache
  cachebench inspect --list 10 --format json data.cache`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runInspect(cmd, args[0], &o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.verify, "verify", false, "check every checksum, record and bucket (reads the whole file)")
	f.BoolVar(&o.stats, "stats", false, "gather histograms over every record and bucket (reads the whole file)")
	f.StringArrayVar(&o.gets, "get", nil, "look KEY up, checked, and print its value (repeatable)")
	f.IntVar(&o.list, "list", 0, "list the first N keys in index order (hash order, not the order they were added)")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	return cmd
}

// sampleBuckets is how many buckets plain inspect checks: enough that a
// damaged file is likely caught, few enough to stay well under a
// millisecond on any file.
const sampleBuckets = 64

func runInspect(cmd *cobra.Command, path string, o *inspectOpts) error {
	if err := checkFormat(o.format, []string{"text", "json"}); err != nil {
		return usageErrorf("inspect: %w", err)
	}
	if o.list < 0 {
		return usageErrorf("inspect: --list must not be negative, got %d", o.list)
	}
	s, err := mmapstore.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || isStoreFileError(err) {
			return usageErrorf("%w", err)
		}
		return err
	}
	defer s.Close()
	rep, failure := inspectStore(s, o)
	w := cmd.OutOrStdout()
	if o.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := writeInspectText(w, rep); err != nil {
		return err
	}
	if failure != nil {
		// A corrupt file is bad input: exit 2.
		return usageErrorf("%w", failure)
	}
	return nil
}

// inspectStore runs the checks o asks for; failure joins what failed.
func inspectStore(s *mmapstore.Store, o *inspectOpts) (*inspectReport, error) {
	rep := &inspectReport{Path: s.Path(), Header: s.Header(), Check: &checkResult{OK: true, Buckets: sampleBuckets}}
	var errs []error
	fail := func(err error) string {
		errs = append(errs, err)
		return err.Error()
	}
	if err := s.CheckSample(sampleBuckets); err != nil {
		rep.Check = &checkResult{Buckets: sampleBuckets, Error: fail(err)}
	}
	if o.stats || o.verify {
		st, err := s.Inspect()
		rep.Stats = &st
		if err != nil {
			rep.Error = fail(err)
		}
	}
	if o.verify {
		rep.Verify = &checkResult{OK: true}
		if err := s.Verify(); err != nil {
			rep.Verify = &checkResult{Error: fail(err)}
		}
	}
	for _, k := range o.gets {
		v, ok, err := s.LookupChecked([]byte(k))
		g := getResult{Key: k, Found: ok}
		if ok {
			g.Type, g.val = v.Type().String(), v
			g.Value, err = json.Marshal(v) // a checked value always marshals
		}
		if err != nil {
			g.Error = fail(err)
		}
		rep.Gets = append(rep.Gets, g)
	}
	if o.list > 0 {
		keys, err := s.Keys(o.list)
		rep.Keys = keys
		if err != nil {
			rep.Error = fail(err)
		}
	}
	return rep, errors.Join(errs...)
}

func isStoreFileError(err error) bool {
	for _, e := range []error{mmapstore.ErrNotCachebench, mmapstore.ErrVersion, mmapstore.ErrCorrupt, mmapstore.ErrChecksum} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

package cli

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
	"github.com/cachebench/cachebench/internal/fileio"
)

type inspectOpts struct {
	verify, stats bool
	gets          []string
	getsHex       []string
	getsB64       []string
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
           --get-hex and --get-b64 take a key of any bytes (a NUL,
           non-UTF-8); in JSON a key or bytes value that is not UTF-8 also
           comes exactly as key_b64 / value_b64.
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
	f.StringArrayVar(&o.getsHex, "get-hex", nil, "like --get, the key given in hex (a key with a NUL or other bytes: 6b00ff)")
	f.StringArrayVar(&o.getsB64, "get-b64", nil, "like --get, the key given in base64 (as key_b64 of --format json shows it)")
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
	keys, err := o.keys()
	if err != nil {
		return err
	}
	// A store is mapped: a FIFO, socket or device cannot be one, and the
	// open of a FIFO without a writer would block past Ctrl-C.
	if err := fileio.CheckRegular(path); err != nil {
		return usageErrorf("inspect: %w", err)
	}
	s, err := mmapstore.Open(path)
	if err != nil {
		// A file that is not there, or that this user may not read, is
		// bad input as much as a corrupt one: exit 2, not 1.
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || isStoreFileError(err) {
			return usageErrorf("%w", err)
		}
		return err
	}
	defer s.Close()
	rep, failure := inspectStore(cmd.Context(), s, o, keys)
	if err := cmd.Context().Err(); err != nil {
		// Interrupted: no report, which would look complete or corrupt.
		return fmt.Errorf("inspect %s: interrupted: %w", s.Path(), err)
	}
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

// keys are the keys of --get, --get-hex and --get-b64, in that order.
func (o *inspectOpts) keys() ([][]byte, error) {
	var keys [][]byte
	for _, k := range o.gets {
		keys = append(keys, []byte(k))
	}
	for _, h := range o.getsHex {
		k, err := hex.DecodeString(h)
		if err != nil {
			return nil, usageErrorf("inspect: --get-hex %q: %w", h, err)
		}
		keys = append(keys, k)
	}
	for _, b := range o.getsB64 {
		k, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			return nil, usageErrorf("inspect: --get-b64 %q: %w", b, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// inspectStore runs the checks o asks for, looking keys up; failure joins
// what failed.
func inspectStore(ctx context.Context, s *mmapstore.Store, o *inspectOpts, keys [][]byte) (*inspectReport, error) {
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
		st, err := s.InspectContext(ctx)
		rep.Stats = &st
		if err != nil {
			rep.Error = fail(err)
		}
	}
	if o.verify {
		rep.Verify = &checkResult{OK: true}
		if err := s.VerifyContext(ctx); err != nil {
			rep.Verify = &checkResult{Error: fail(err)}
		}
	}
	for _, k := range keys {
		v, ok, err := s.LookupChecked(k)
		g := getResult{Key: string(k), KeyB64: b64IfBinary(k), Found: ok}
		if ok {
			g.Type, g.val = v.Type().String(), v
			g.Value, err = json.Marshal(v) // a checked value always marshals
			if v.Type() == mmapstore.TypeBytes {
				g.ValueB64 = b64IfBinary(v.Bytes())
			}
		}
		if err != nil {
			g.Error = fail(err)
		}
		rep.Gets = append(rep.Gets, g)
	}
	if o.list > 0 {
		keys, err := s.Keys(o.list)
		for _, k := range keys {
			rep.Keys = append(rep.Keys, keyEntry{Key: k, KeyB64: b64IfBinary([]byte(k))})
		}
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

package trace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/fileio"
)

// OutFormat is a format Convert writes.
type OutFormat string

// The formats Convert writes. Each reads back with the same ids, sizes
// and times (ReadBack names how).
const (
	// OutOracle is oracleGeneral with the Next fields filled in: what
	// libCacheSim and the hit-ratio lab replay, OPT included.
	OutOracle OutFormat = "oracleGeneral"
	// OutText is one "time id size" line per request, the AdaptSize
	// layout.
	OutText OutFormat = "text"
	// OutCSV is "time,id,size" lines under that header.
	OutCSV OutFormat = "csv"
)

// OutFormats lists the output formats.
var OutFormats = []string{string(OutOracle), string(OutText), string(OutCSV)}

// ParseOutFormat checks an output format name; "" or "auto" means "from
// the output file's name" (OutFormatOf).
func ParseOutFormat(s string) (OutFormat, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", nil
	case "oraclegeneral", "oracle":
		return OutOracle, nil
	case "text", "txt":
		return OutText, nil
	case "csv":
		return OutCSV, nil
	}
	return "", fmt.Errorf("%w %q for output (valid: auto, %s)", ErrUnknownFormat, s, strings.Join(OutFormats, ", "))
}

// OutFormatOf tells the output format from a file name, ignoring a .zst,
// .gz or .xz suffix: .oracleGeneral, .oracle or .bin, .txt, .csv.
func OutFormatOf(path string) (OutFormat, error) {
	name := strings.ToLower(filepath.Base(path))
	for _, z := range []string{".gz", ".zst", ".xz"} {
		name = strings.TrimSuffix(name, z)
	}
	switch filepath.Ext(name) {
	case ".oraclegeneral", ".oracle", ".bin":
		return OutOracle, nil
	case ".txt":
		return OutText, nil
	case ".csv":
		return OutCSV, nil
	}
	return "", fmt.Errorf("%s: %w: cannot tell the output format from the name (end it in .oracleGeneral, .txt or .csv, with .zst, .gz or .xz to compress, or give --format)", path, ErrUnknownFormat)
}

// ReadBack is the trace argument that reads a file Convert wrote in
// format f at path.
func ReadBack(f OutFormat, path string) string {
	switch f {
	case OutText:
		return string(AdaptSize) + ":" + path
	case OutCSV:
		return "csv[time=1,id=2,size=3,header]:" + path
	}
	return string(Oracle) + ":" + path
}

// Convert writes every request of src to path in format f, compressed
// by the path's suffix (.zst, .gz, .xz), by the output rule of package
// fileio: the file appears complete or not at all. It returns the number
// of requests; a trace without one is ErrEmpty, and nothing is written.
// Memory: oracleGeneral output keeps one map entry per distinct object
// (the Next fields); text and CSV keep nothing.
func Convert(ctx context.Context, src Reader, path string, f OutFormat) (int64, error) {
	src = Cancellable(ctx, src)
	if f == OutOracle {
		return writeOracleFile(ctx, path, 0, func(out *os.File) (int64, error) {
			var n int64
			err := copyRecords(src, out, func(q *Request) error {
				n++
				q.Next = NoNext
				return nil
			})
			if err == nil && n == 0 {
				err = ErrEmpty
			}
			return n, err
		})
	}
	var n int64
	err := fileio.WriteFile(ctx, path, func(w io.Writer) error {
		zw, err := newCompressor(w, path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(zw, readBuffer)
		sep := byte(' ')
		if f == OutCSV {
			sep = ','
			bw.WriteString("time,id,size\n")
		}
		var q Request
		var line []byte
		for {
			err := src.Next(&q)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			n++
			line = strconv.AppendUint(line[:0], uint64(q.Time), 10)
			line = append(line, sep)
			line = strconv.AppendUint(line, q.ID, 10)
			line = append(line, sep)
			line = strconv.AppendUint(line, uint64(q.Size), 10)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		if n == 0 {
			return ErrEmpty
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return zw.Close()
	})
	return n, err
}

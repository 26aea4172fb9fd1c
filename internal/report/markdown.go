package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes results as GitHub markdown: for a run, one table
// per workload and GOMAXPROCS value with a row per adapter (insert and
// lookup merged, fastest lookup first, flagged adapters last); for a
// gc-pause result, one table per configuration. Each result starts with
// a level-2 heading naming its CPU, then its machine and run lines.
func WriteMarkdown(w io.Writer, results ...*Result) error {
	return writeMarkdownDoc(w, buildDocument(2, results))
}

func writeMarkdownDoc(w io.Writer, d *document) error {
	bw := bufio.NewWriter(w)
	for i, b := range d.blocks {
		if i > 0 {
			bw.WriteByte('\n')
		}
		switch b.kind {
		case blockHeading:
			fmt.Fprintf(bw, "%s %s\n", strings.Repeat("#", min(max(b.level, 1), 6)), b.text)
		case blockPara:
			fmt.Fprintln(bw, b.text)
		case blockTable:
			if err := b.table.WriteMarkdown(bw); err != nil {
				return fmt.Errorf("report: write markdown: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write markdown: %w", err)
	}
	return nil
}

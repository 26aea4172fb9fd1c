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
			writeMarkdownTable(bw, b.table)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write markdown: %w", err)
	}
	return nil
}

func writeMarkdownTable(w *bufio.Writer, t *table) {
	writeMarkdownRow(w, t.header)
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = "---"
		if t.right[i] {
			sep[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range t.rows {
		writeMarkdownRow(w, r)
	}
}

func writeMarkdownRow(w *bufio.Writer, cells []string) {
	w.WriteString("|")
	for _, c := range cells {
		w.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	w.WriteString("\n")
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// WriteText writes the same tables as WriteMarkdown as aligned plain text
// for a terminal.
func WriteText(w io.Writer, results ...*Result) error {
	d := buildDocument(1, results)
	bw := bufio.NewWriter(w)
	for i, b := range d.blocks {
		if i > 0 {
			bw.WriteByte('\n')
		}
		switch b.kind {
		case blockHeading:
			rule := "-"
			if b.level <= 1 {
				rule = "="
			}
			fmt.Fprintf(bw, "%s\n%s\n", b.text, strings.Repeat(rule, utf8.RuneCountInString(b.text)))
		case blockPara:
			fmt.Fprintln(bw, b.text)
		case blockTable:
			writeTextTable(bw, b.table)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write text: %w", err)
	}
	return nil
}

func writeTextTable(w io.Writer, t *table) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rule := make([]string, len(t.header))
	for i, h := range t.header {
		rule[i] = strings.Repeat("-", utf8.RuneCountInString(h))
	}
	for _, cells := range append([][]string{t.header, rule}, t.rows...) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

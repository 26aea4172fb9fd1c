package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
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
			if err := b.table.WriteText(bw); err != nil {
				return fmt.Errorf("report: write text: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write text: %w", err)
	}
	return nil
}

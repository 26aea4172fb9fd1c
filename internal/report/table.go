package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Align is how a column of a Table lines up in markdown.
type Align int8

// Alignments.
const (
	AlignLeft Align = iota
	AlignRight
)

// Table is a table of strings: a header, one alignment per column and
// rows of cells. It is the one table writer of cachebench: the run and
// gc-pause documents and compare's report all render their tables through
// it, as aligned plain text for a terminal or as GitHub markdown, so that
// escaping and alignment are decided in one place.
//
// Alignment applies to markdown, where it is part of the format. The text
// form pads every column on the right with two spaces between columns
// (text/tabwriter), as the committed text outputs have always looked.
type Table struct {
	Header []string
	// Align holds one entry per column; a missing entry is AlignLeft.
	Align []Align
	Rows  [][]string
}

// NewTable makes a table whose columns are all left-aligned.
func NewTable(header ...string) *Table {
	return &Table{Header: header, Align: make([]Align, len(header))}
}

// NewFigureTable makes a table whose first column (a name) is
// left-aligned and all others right-aligned: they hold figures.
func NewFigureTable(header ...string) *Table {
	t := NewTable(header...)
	for i := 1; i < len(t.Align); i++ {
		t.Align[i] = AlignRight
	}
	return t
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// WriteText writes t as aligned plain text: the header, a rule of dashes
// under each header cell, then the rows.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rule := make([]string, len(t.Header))
	for i, h := range t.Header {
		rule[i] = strings.Repeat("-", utf8.RuneCountInString(h))
	}
	for _, cells := range append([][]string{t.Header, rule}, t.Rows...) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: write table: %w", err)
	}
	return nil
}

// WriteMarkdown writes t as a GitHub markdown table; a "|" inside a cell
// is escaped so that it does not split the cell.
func (t *Table) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeMarkdownRow(bw, t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
		if i < len(t.Align) && t.Align[i] == AlignRight {
			sep[i] = "---:"
		}
	}
	fmt.Fprintf(bw, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range t.Rows {
		writeMarkdownRow(bw, r)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write table: %w", err)
	}
	return nil
}

func writeMarkdownRow(w *bufio.Writer, cells []string) {
	w.WriteString("|")
	for _, c := range cells {
		w.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	w.WriteString("\n")
}

package report

import (
	"io"
	"strings"
)

// WriteMarkdown writes results as GitHub markdown: for a run, one table
// per workload and GOMAXPROCS value with a row per adapter (insert and
// lookup merged, fastest lookup first, flagged adapters last); for a
// gc-pause result, one table per configuration. Each result starts with
// a level-2 heading naming its CPU, then its machine and run lines.
func WriteMarkdown(w io.Writer, results ...*Result) error {
	return buildDocument(2, results).write(w, markdownStyle)
}

// markdownStyle writes headings as #-headings and tables with
// Table.WriteMarkdown.
var markdownStyle = docStyle{
	name: "markdown",
	heading: func(level int, text string) string {
		return strings.Repeat("#", min(max(level, 1), 6)) + " " + text
	},
	table: (*Table).WriteMarkdown,
}

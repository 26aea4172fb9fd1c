package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes the same tables as WriteMarkdown as aligned plain text
// for a terminal.
func WriteText(w io.Writer, results ...*Result) error {
	return buildDocument(1, results).write(w, textStyle)
}

// textStyle underlines headings (= for a title, - below it) and draws
// tables with Table.WriteText.
var textStyle = docStyle{
	name: "text",
	heading: func(level int, text string) string {
		rule := "-"
		if level <= 1 {
			rule = "="
		}
		return text + "\n" + strings.Repeat(rule, utf8.RuneCountInString(text))
	},
	table: (*Table).WriteText,
}

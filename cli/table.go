package cli

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// newTable returns a table with the given header, left-aligned, wrapping
// long cells.
func newTable(w io.Writer, header ...any) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithRowMaxWidth(70),
	)
	t.Header(header...)
	return t
}

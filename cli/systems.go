package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func systemsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "systems",
		Short: "List the systems this binary knows, with their options and bug switches",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for i, s := range e.cat.Systems() {
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprintf(e.stdout, "%s — %s\n", s.Name, s.Doc)
				t := newTable(e.stdout, "option", "default", "kind", "description")
				for _, o := range s.Options {
					kind := "option"
					if o.Bug {
						kind = "bug"
					}
					usage := o.Usage
					if o.Bounded() {
						usage += fmt.Sprintf(" (%d to %d)", o.Min, o.Max)
					}
					t.Append(o.Name, o.Default, kind, usage)
				}
				if err := t.Render(); err != nil {
					return err
				}
				if bugs := s.Bugs(); len(bugs) > 0 {
					fmt.Fprintf(e.stdout, "bug switches: %s\n", strings.Join(bugs, ", "))
				}
			}
			return nil
		},
	}
}

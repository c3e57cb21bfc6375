package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
	"github.com/spf13/cobra"
)

// traceJSON is the shape of `demi show --json`.
type traceJSON struct {
	System     string            `json:"system"`
	Options    map[string]string `json:"options"`
	Seed       uint64            `json:"seed"`
	Network    string            `json:"network"`
	Note       string            `json:"note,omitempty"`
	Fuzz       *record.FuzzInfo  `json:"fuzz,omitempty"`
	Deliveries int               `json:"deliveries"`
	Externals  int               `json:"externals"`
	Violation  *record.Violation `json:"violation"`
	Events     []eventJSON       `json:"events"`
}

type eventJSON struct {
	Step    int                `json:"step"`
	Kind    string             `json:"kind"`
	ID      record.MsgID       `json:"id,omitempty"`
	From    record.ActorID     `json:"from,omitempty"`
	To      record.ActorID     `json:"to,omitempty"`
	Type    string             `json:"type,omitempty"`
	Message json.RawMessage    `json:"message,omitempty"`
	Timer   string             `json:"timer,omitempty"`
	Cause   int                `json:"cause"`
	Actor   record.ActorID     `json:"actor,omitempty"`
	A       []record.ActorID   `json:"a,omitempty"`
	B       []record.ActorID   `json:"b,omitempty"`
	Cond    string             `json:"cond,omitempty"`
	At      record.VirtualTime `json:"at,omitempty"`
}

func showCmd(e *env) *cobra.Command {
	var (
		asJSON, byRound bool
		format          string
		of              optionFlags
	)
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Print a trace's events as a table (or JSON, or round by round), ending with its violation",
		Long: `show prints the events of a trace as a table: step, kind, from, to, message,
ending with the violation. --json prints the same as a JSON object (with the
counts deliveries and externals at the top level). --rounds replays the trace
and lays it out round by round (for systems whose messages carry a round):
who sent what in each phase, whose messages each actor heard (its HO set),
who was isolated, how each actor's state changed, and the late deliveries
apart as the asynchronous residue. --opt name=value, --bug NAME and --no-bug
NAME change the trace's options (shown in the header line) for --rounds.

--format markdown prints a bug-report body to paste into an issue (what
broke, a Mermaid sequence diagram, the event table, the round view, the
commands that reproduce it); --format mermaid the diagram alone; --format
shiviz a log for the ShiViz visualizer (docs/bug-reports.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkShowFormat(format); err != nil {
				return err
			}
			if err := checkShowModes(asJSON, byRound, format); err != nil {
				return err
			}
			t, sys, err := e.loadTraceWith(cmd.Context(), args[0], &of)
			if err != nil {
				return err
			}
			switch format {
			case "", "text":
			case "json":
				asJSON = true
			default:
				return showFormatted(cmd.Context(), e, args[0], format, t, sys)
			}
			if asJSON {
				return showJSON(e, t)
			}
			if byRound {
				lay, err := buildRounds(cmd.Context(), e.stderr, sys, t, time.Second)
				if err != nil && of.set() && cmd.Context().Err() == nil {
					return notFound(fmt.Errorf("with the options changed, the run leaves the trace: %w", err))
				}
				if err != nil {
					return replayFailure(cmd.Context(), err)
				}
				return lay.Write(e.stdout)
			}
			h := t.Header
			fmt.Fprintf(e.stdout, "%s  system %s%s  seed %d  network %s\n%d deliveries, %d externals\n",
				args[0], h.System, changedOptions(sys, h.OptionMap()), h.Seed, h.Network, h.Deliveries, h.Externals)
			if h.Fuzz != nil {
				fmt.Fprintf(e.stdout, "fuzz mode %s\n", record.Escape(h.Fuzz.String()))
			}
			// A run with virtual time shows the clock of every delivery.
			timed := slices.ContainsFunc(t.Events, func(ev record.Event) bool { return ev.At != 0 })
			cols := []any{"step", "kind", "from", "to", "message"}
			if timed {
				cols = slices.Insert(cols, 1, any("time"))
			}
			tb := newTable(e.stdout, cols...)
			for i, ev := range t.Events {
				kind, from, to, msg := report.Describe(ev)
				row := []any{strconv.Itoa(i), kind, record.Escape(from), record.Escape(to), record.Escape(msg)}
				if timed {
					at := ""
					if ev.Kind == record.Deliver {
						at = strconv.FormatInt(int64(ev.At), 10)
					}
					row = slices.Insert(row, 1, any(at))
				}
				tb.Append(row...)
			}
			if err := tb.Render(); err != nil {
				return err
			}
			if v := h.Violation; v != nil {
				fmt.Fprintf(e.stdout, "violation after step %d: %s\n  %s\n", v.Event, record.Escape(v.Fingerprint), record.Escape(v.Detail))
			} else {
				fmt.Fprintln(e.stdout, "no violation recorded")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().BoolVar(&byRound, "rounds", false, "lay the trace out round by round")
	cmd.Flags().StringVar(&format, "format", "text", "text, json, markdown (a bug-report body), mermaid (its diagram) or shiviz (a ShiViz log)")
	of.register(cmd, " instead of the trace's")
	return cmd
}

// changedOptions renders the options that differ from the system's
// defaults, as " (name=value,...)", or "" when all are defaults.
func changedOptions(sys *record.System, o record.Options) string {
	if parts := sys.ChangedOptions(o); len(parts) > 0 {
		return " (" + strings.Join(parts, ", ") + ")"
	}
	return ""
}

func showJSON(e *env, t *record.Trace) error {
	h := t.Header
	out := traceJSON{System: h.System, Options: h.OptionMap(), Seed: h.Seed, Network: h.Network, Note: h.Note, Fuzz: h.Fuzz,
		Deliveries: h.Deliveries, Externals: h.Externals, Violation: h.Violation, Events: make([]eventJSON, 0, len(t.Events))}
	for i, ev := range t.Events {
		j := eventJSON{Step: i, Kind: ev.Kind.String(), ID: ev.ID, From: ev.From, To: ev.To, Timer: ev.Timer,
			Cause: ev.Cause, Actor: ev.Actor, A: ev.A, B: ev.B, Cond: ev.Cond, At: ev.At}
		if ev.Msg != nil {
			j.Type = record.TypeName(ev.Msg)
			b, err := json.Marshal(ev.Msg)
			if err != nil {
				return fmt.Errorf("event %d: %w", i, err)
			}
			j.Message = b
		}
		out.Events = append(out.Events, j)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/demi-project/demi/record"
)

// ShiVizRegexp is the first line of a ShiViz log: how ShiViz parses each
// event line into its host, vector clock and event text.
const ShiVizRegexp = `(?<host>\S+) (?<clock>\{[^}]*\}) (?<event>.*)`

// WriteShiViz writes the story as a log the ShiViz visualizer accepts: the
// parsing regular expression, an empty line (no delimiter between
// executions: there is one), then one line per event: host, vector clock
// as JSON, event text.
//
// Hosts are the actors, and record.External for what comes from outside
// (external messages, partitions, heals). A delivery is an event of its
// receiver whose clock merges the clock its sender had when it sent the
// message; start, kill and restart are events of their actor. Each host's
// own entry starts at 1 and grows by 1 per event of that host, and a
// clock names only hosts that have events: the rules ShiViz checks.
func (s *Story) WriteShiViz(w io.Writer) error {
	p := &printer{w: w}
	p.line("%s", ShiVizRegexp)
	p.line("")
	clocks := map[record.ActorID]map[record.ActorID]int{}
	// at[i] is the clock of step i's host right after step i: the clock a
	// message sent by step i carries.
	at := make([]map[record.ActorID]int, len(s.Steps))
	for _, st := range s.Steps {
		e := st.Event
		host, text := shivizEvent(e)
		c := clocks[host]
		if c == nil {
			c = map[record.ActorID]int{}
			clocks[host] = c
		}
		if e.Kind == record.Deliver && e.Cause >= 0 && e.Cause < st.Index {
			for h, n := range at[e.Cause] {
				c[h] = max(c[h], n)
			}
		}
		c[host]++
		at[st.Index] = copyClock(c)
		if v := s.Violation(); v != nil && v.Event == st.Index {
			text += fmt.Sprintf(" -- VIOLATION %s: %s", v.Fingerprint, v.Detail)
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		p.line("%s %s step %d: %s", shivizHost(host), b, st.Index, strings.Join(strings.Fields(text), " "))
	}
	return p.err
}

// shivizEvent returns the host of an event and its text.
func shivizEvent(e record.Event) (record.ActorID, string) {
	switch e.Kind {
	case record.Deliver:
		if e.Timer != "" {
			return e.To, fmt.Sprintf("timer %s fires: %s", e.Timer, record.FormatMessage(e.Msg))
		}
		return e.To, fmt.Sprintf("receive #%d from %s: %s", e.ID, e.From, record.FormatMessage(e.Msg))
	case record.Start, record.Kill, record.Restart:
		return e.Actor, e.Kind.String()
	case record.Send:
		return record.External, fmt.Sprintf("send #%d to %s: %s", e.ID, e.To, record.FormatMessage(e.Msg))
	}
	return record.External, e.String()
}

// shivizHost keeps a host name one token long, as the regexp wants.
func shivizHost(h record.ActorID) string {
	return strings.Join(strings.Fields(string(h)), "_")
}

func copyClock(c map[record.ActorID]int) map[record.ActorID]int {
	out := make(map[record.ActorID]int, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

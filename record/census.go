package record

import (
	"cmp"
	"slices"
)

// Census counts what the runs of a search delivered, by message type: what
// a fuzzed run of a system spends its deliveries on (heartbeats, votes,
// client requests), for example how often timers start elections with and
// without a time model. Add each run to it (SearchConfig.Observe).
type Census struct {
	Runs       int   // runs counted
	Violations int   // of them, runs that ended in a violation
	Deliveries int64 // deliveries of all of them
	Externals  int64 // external events of all of them
	counts     map[censusKey]int64
}

type censusKey struct {
	typ   string
	timer bool
}

// CensusRow is one message type of a Census.
type CensusRow struct {
	Type       string // the message type (TypeName)
	Timer      bool   // delivered as a timer
	Deliveries int64
}

// PerThousand returns the row's deliveries per 1,000 deliveries of the
// census.
func (c *Census) PerThousand(r CensusRow) float64 {
	if c.Deliveries == 0 {
		return 0
	}
	return 1000 * float64(r.Deliveries) / float64(c.Deliveries)
}

// Add counts the deliveries of a finished run, and whether it ended in a
// violation.
func (c *Census) Add(s *Sim, v *Violation) {
	if c.counts == nil {
		c.counts = map[censusKey]int64{}
	}
	c.Runs++
	if v != nil {
		c.Violations++
	}
	c.Deliveries += int64(s.deliveries)
	c.Externals += int64(s.externals)
	count := func(msg Message, timer string) {
		c.counts[censusKey{TypeName(msg), timer != ""}]++
	}
	if s.lazy {
		for i := range s.log.size() {
			if en := s.log.at(i); en.kind == Deliver {
				count(en.msg, en.timer)
			}
		}
		return
	}
	for i := range s.events {
		if e := &s.events[i]; e.Kind == Deliver {
			count(e.Msg, e.Timer)
		}
	}
}

// Rows returns the census by message type, the most delivered first (then
// by name, messages before timers).
func (c *Census) Rows() []CensusRow {
	rows := make([]CensusRow, 0, len(c.counts))
	for k, n := range c.counts {
		rows = append(rows, CensusRow{Type: k.typ, Timer: k.timer, Deliveries: n})
	}
	slices.SortFunc(rows, func(a, b CensusRow) int {
		if c := cmp.Compare(b.Deliveries, a.Deliveries); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a.Timer), boolInt(b.Timer))
	})
	return rows
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

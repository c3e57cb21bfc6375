package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// retargetEdits lists the moves (reorder.go) that address an external send, kill or restart to another
// started actor: the fuzzer chose each target at random, and a route through another actor may be shorter.
// most > 0: at most most of them with one earlier delivery to the old target left out instead, which readied
// that target for the event and, left in, can break the new route.
func retargetEdits(events []record.Event, most int) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		cur := e.Actor
		if e.Kind == record.Send {
			cur = e.To
		} else if e.Kind != record.Kill && e.Kind != record.Restart {
			continue
		}
		var readied []int // the deliveries to cur before i (most > 0)
		for d := 0; most > 0 && d < i; d++ {
			if events[d].Kind == record.Deliver && events[d].To == cur {
				readied = append(readied, d)
			}
		}
		for _, a := range actors {
			switch {
			case a == cur:
			case most == 0:
				out = append(out, retarget(i, a))
			default:
				for _, d := range readied {
					if len(out) == most {
						return out
					}
					out = append(out, func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
						return slices.Delete(retarget(i, a)(fp, bp), d, d+1).Wildcards(d)
					})
				}
			}
		}
	}
	return out
}

// retarget addresses the external event at i (a send with its delivery) to actor to instead, wildcards after it.
func retarget(i int, to record.ActorID) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		return withExternal(bp, i, func(st *dpor.Step) {
			if st.Event.Kind == record.Kill || st.Event.Kind == record.Restart {
				st.Event.Actor = to
			} else {
				st.Event.To = to
			}
		})
	}
}

// withExternal returns a copy of bp with change applied to the external
// event at i and its deliveries, the deliveries after i wildcards.
func withExternal(bp dpor.Plan, i int, change func(*dpor.Step)) dpor.Plan {
	p := slices.Clone(bp).Wildcards(i + 1)
	change(&p[i])
	for k := i + 1; k < len(p); k++ {
		if p[k].Event.Kind == record.Deliver && p[k].Event.Cause == i {
			change(&p[k])
		}
	}
	return p
}

// retarget runs the retarget pass: reorderWith over the moves of this file, reorder.go and handover.go.
func (m *minimizer) retarget(ctx context.Context) error {
	contents, err := m.injectedContents(ctx)
	if err != nil {
		return err
	}
	contents = append(slices.Clip(m.contents), contents...)
	return m.reorderWith(ctx, func(base *record.Trace) []edit {
		out := retargetEdits(base.Events, 0)
		out = append(out, m.moves(base)...)
		out = append(out, handoverEdits(base.Events)...) // handover.go
		out = append(out, redirectEdits(base.Events)...)
		out = append(out, contentEdits(base.Events, contents, m.fp)...)
		out = append(out, timerEdits(base.Events, m.timers, m.fifo())...)
		out = append(out, earlierEdits(base.Events, m.limitsOf(StageRetarget).moves)...)
		out = append(out, retargetEdits(base.Events, m.limitsOf(StageRetarget).moves)...)
		out = append(out, aheadEdits(base.Events, m.fifo(), m.limitsOf(StageRetarget).moves)...)
		if base.Header.Deliveries <= m.limitsOf(StageRetarget).deliveries {
			out = append(out, hoistEdits(base.Events, m.limitsOf(StageRetarget).moves)...)
		}
		return out
	})
}

// injectedContents returns, once per minimization, the contents the system's generators make
// (record.System.InjectedContents) after the best trace's leading starts that the input lacked: a route may
// need a content the fuzzed run never drew (a job with a locality preference where the input's had none).
func (m *minimizer) injectedContents(ctx context.Context) ([]record.Message, error) {
	if m.injected != nil || len(m.sys.Externals) == 0 {
		return m.injected, nil
	}
	base := m.snapshotBest()
	d, err := record.NewDriver(base.Setup(m.sys), base.Events, record.Follow{})
	if err != nil {
		return nil, err
	}
	n := afterStarts(base.Events)
	if err := d.RunTo(ctx, n); err != nil {
		return nil, err
	}
	m.steps.Add(int64(n))
	have := map[uint64]bool{}
	for _, c := range m.contents {
		have[m.fp.Of(c).Full] = true
	}
	m.injected = []record.Message{}
	for _, c := range m.sys.InjectedContents(d.Sim().View(), m.limitsOf(StageRetarget).contents) {
		if f := m.fp.Of(c).Full; !have[f] {
			have[f] = true
			m.injected = append(m.injected, c)
		}
	}
	return m.injected, nil
}

// contentEdits lists the moves that give an external send (withExternal) another content of its type the input had
// (contents): shrink-contents only takes components away, and a shorter route may need another job's preferences.
func contentEdits(events []record.Event, contents []record.Message, fp *fingerprint.Fingerprinter) []edit {
	names, fps := make([]string, len(contents)), make([]uint64, len(contents))
	for k, c := range contents {
		names[k], fps[k] = record.TypeName(c), fp.Of(c).Full
	}
	var out []edit
	for i, e := range events {
		if e.Kind != record.Send || e.Msg == nil {
			continue
		}
		name, own := record.TypeName(e.Msg), fp.Of(e.Msg).Full
		for k, c := range contents {
			if names[k] == name && fps[k] != own {
				out = append(out, func(f *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
					fpc := f.Of(c)
					return withExternal(bp, i, func(st *dpor.Step) {
						st.Event.Msg = c
						if st.Event.Kind == record.Deliver {
							st.FP = fpc
						}
					})
				})
			}
		}
	}
	return out
}

// redirectEdits lists the moves that deliver a message to another started actor, later deliveries
// reroutable wildcards (a round moves to another quorum member).
func redirectEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer != "" || e.From == record.External {
			continue
		}
		for _, a := range actors {
			if a != e.To && a != e.From {
				out = append(out, func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
					p := bp.Without(nil, i+1, true) // a copy, nothing dropped
					p[i].Event.To, p[i].Wildcard = a, true
					return p
				})
			}
		}
	}
	return out
}

// timerEdits lists the moves that fire a timer of a message's receiver in place of its delivery, wildcards after: an
// external message's send left out (many a fuzzer sends only wake their actor, which any of its timers does), an
// internal message's sender then maybe useless (its message only moved the receiver on, as its own timer can), what
// that timer sends queued ahead on the receiver's links (dpor.Plan.Flushed). timers are the input's (firstTimers), readdressed.
func timerEdits(events, timers []record.Event, fifo bool) []edit {
	var out []edit
	for d, e := range events {
		ext := externalMessage(events, d)
		if !ext && (e.Kind != record.Deliver || e.Timer != "" || e.From == record.External) {
			continue
		}
		drop := slices.Repeat([]int{e.Cause}, int(boolBit(ext))) // e.Cause < d
		for _, t := range timers {
			out = append(out, func(f *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
				x, k := t, d-len(drop)
				x.To, x.From, x.Cause = e.To, e.To, -1
				p := bp.Without(drop, d+1, false) // a copy
				p[k] = dpor.Step{Event: x, FP: f.Of(x.Msg)}
				return p.Flushed(k+1, e.To, fifo && !ext)
			})
		}
	}
	return out
}

// firstTimers returns the first firing of each timer key of events.
func firstTimers(events []record.Event) (out []record.Event) {
	seen := map[string]bool{}
	for _, e := range events {
		if e.Kind == record.Deliver && e.Timer != "" && !seen[e.Timer] {
			seen[e.Timer] = true
			out = append(out, e)
		}
	}
	return out
}

// earlierEdits lists at most most moves of an external message's delivery (with its send, if after p)
// to an earlier position p with another external event after p left out, which the moved message can
// make useless and, left in, would break the new route (a crash-restart dropping what it had sent).
func earlierEdits(events []record.Event, most int) []edit {
	units := externalUnits(events)
	var out []edit
	for d := range events {
		if !externalMessage(events, d) {
			continue
		}
		s := events[d].Cause
		for p := 1; p < d; p++ {
			for _, u := range units {
				if u[0] > p && u[0] != s && p != s {
					if len(out) == most {
						return out
					}
					out = append(out, earlierWithout(s, d, p, u))
				}
			}
		}
	}
	return out
}

// earlierWithout moves the send at s (if p < s) and its delivery at d to
// position p, leaves out the events of drop, wildcards from p on.
func earlierWithout(s, d, p int, drop []int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		out := make(dpor.Plan, 0, len(bp))
		for i := range bp {
			if i == p {
				if p < s {
					out = append(out, bp[s])
				}
				out = append(out, bp[d])
			}
			if (i != s || p > s) && i != d && !slices.Contains(drop, i) {
				out = append(out, bp[i])
			}
		}
		return out.Wildcards(p)
	}
}

// hoistEdits lists at most most moves that run a delivery as early as its causes allow (record.ActorPast), the
// rest after it in order, wildcards from the first event moved: an actor started later then misses what it sends.
func hoistEdits(events []record.Event, most int) (out []edit) {
	for d, e := range events {
		if e.Kind != record.Deliver || e.From == record.External || len(out) == most {
			continue
		}
		need, moved := record.ActorPast(events, d), false // moved: a start goes after the delivery
		for i := 0; i < d && !moved; i++ {
			moved = events[i].Kind == record.Start && !need[i]
		}
		if moved {
			out = append(out, func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
				p := make(dpor.Plan, 0, len(bp))
				for _, past := range []bool{true, false} { // the past first, then the rest
					for i, in := range need {
						if in == past {
							p = append(p, bp[i])
						}
					}
				}
				return append(p, bp[d+1:]...).Wildcards(slices.Index(need, false))
			})
		}
	}
	return out
}

package record

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Unignorable is implemented by messages that a schedule must not do
// without, typically those an actor sends while it boots (a registration,
// an initialization message): the DEMi paper's "unignorable" bootstrap
// messages. When a Driver that waits (Follow.Wait; package replay's does)
// reaches the delivery step of such a message and the message is not there (not pending under its ID in an exact replay,
// nothing matches in a loose one), it does not report a divergence or skip
// the step: it waits for the message, delivering other pending messages
// (see Driver.await), and reports a Divergence that says so only when the
// message cannot come. A message type decides per message: return true for
// the boot-time send (the first attempt of a registration, say) and false
// for its retries.
type Unignorable interface {
	Unignorable() bool
}

// IsUnignorable reports whether m is an unignorable message.
func IsUnignorable(m Message) bool {
	u, ok := m.(Unignorable)
	return ok && u.Unignorable()
}

// DefaultWaitLimit is the number of deliveries a Driver makes at most while
// it waits for one unignorable message (Follow.WaitLimit).
const DefaultWaitLimit = 1000

// awaits reports whether the driver waits for schedule step e when its
// message is missing.
func (d *Driver) awaits(e *Event) bool { return d.f.Wait && IsUnignorable(e.Msg) }

// await takes delivery step k, whose unignorable message e is missing: it
// delivers other pending messages, off the schedule, until a message that
// matches the step (by the loose Matcher in force, MatchType in an exact
// replay) can be delivered, and delivers it as step k. While it waits it
// prefers ordinary messages to timers, the oldest first, and it detects
// timers that repeat in a cycle: a timer that has fired since the last
// delivery of a new kind of message (sender, receiver, timer key and type
// not delivered before in this wait) does not fire again until such a
// delivery comes. The wait ends in a Divergence at step k, and Run stops,
// when nothing else can be delivered, when only such timers are pending,
// or after Follow.WaitLimit deliveries; it also ends when a delivery stops
// the run (the wanted violation, a panic, Observe).
func (d *Driver) await(ctx context.Context, o *Outcome, k int, e *Event) error {
	match := d.f.Loose
	if match == nil {
		match = MatchType
	}
	limit := d.f.WaitLimit
	if limit <= 0 {
		limit = DefaultWaitLimit
	}
	seen := map[string]bool{}  // kinds of message delivered in this wait
	fired := map[string]bool{} // timers fired since the last new kind
	var buf []int32
	for waited := 0; ; waited++ {
		if id, ok := match(d.sim, k, e); ok {
			if _, gone := d.dropped[id]; !gone {
				if at, why := d.sim.deliverable(id); why == nil {
					if waited > 0 || id != e.ID {
						d.leave()
					}
					o.Waited = waited
					o.Delivered = d.sim.pend[at]
					d.sim.deliverAt(at)
					o.Event = d.sim.eventCount() - 1
					d.pos++
					d.after(o, true)
					return nil
				}
			}
		}
		if waited >= limit {
			o.Waited = waited
			d.diverged(o, e, fmt.Sprintf("the unignorable message was not sent within the wait limit of %d deliveries", limit), nil)
			return nil
		}
		buf, _ = d.sim.enabled(buf[:0])
		next, repeating := -1, []string(nil)
		for _, timers := range []bool{false, true} {
			for _, i := range buf {
				p := &d.sim.pend[i]
				if _, gone := d.dropped[p.ID]; gone || (p.Timer != "") != timers {
					continue
				}
				if timers && fired[kindOf(p)] {
					repeating = append(repeating, p.Timer+" at "+string(p.To))
					continue
				}
				next = int(i)
				break
			}
			if next >= 0 {
				break
			}
		}
		if next < 0 {
			o.Waited = waited
			why := "nothing else can be delivered"
			if len(repeating) > 0 {
				slices.Sort(repeating)
				why = "only timers that repeat in a cycle are pending (" + strings.Join(slices.Compact(repeating), ", ") + ")"
			}
			d.diverged(o, e, fmt.Sprintf("the unignorable message was never sent: waited %d deliveries for it; %s", waited, why), nil)
			return nil
		}
		if err := d.enter(ctx); err != nil {
			return err
		}
		kind := kindOf(&d.sim.pend[next])
		if !seen[kind] {
			seen[kind] = true
			clear(fired)
		}
		if d.sim.pend[next].Timer != "" {
			fired[kind] = true
		}
		d.leave()
		w := Outcome{Step: -1, Event: -1, Delivered: d.sim.pend[next]}
		d.sim.deliverAt(next)
		w.Event = d.sim.eventCount() - 1
		d.after(&w, true)
		if d.Stopped() {
			o.Waited = waited + 1
			return nil
		}
	}
}

// kindOf names what a wait counts as "the same message again": sender,
// receiver, timer key and type.
func kindOf(p *Pending) string {
	return string(p.From) + "\x00" + string(p.To) + "\x00" + p.Timer + "\x00" + TypeName(p.Msg)
}

// Package twophase is two-phase commit with crash recovery, written as
// demi actors. It is a held-out system (see ../README.md): demi's
// minimizer is measured on it, never tuned on it.
//
// One coordinator ("coord") and N participants (p1 ... pN, 3 by default).
// A client asks the coordinator to run a transaction (the external message
// Begin{Tx}, Tx drawn by the fuzzer from 1..txs). The protocol is
// presumed-abort two-phase commit:
//
//   - The coordinator sends Prepare{Tx} to every participant and arms its
//     vote timer.
//   - A participant votes Yes unless it was told to prefer aborting the
//     transaction (the external message Prefer{Tx, Abort}, the fuzzer's
//     draw of the participant's inclination). A Yes vote is written to
//     stable storage (the participant is then prepared) before it is sent;
//     a No vote aborts the transaction at the participant at once.
//   - The coordinator decides Commit iff every participant voted Yes
//     (Decide), and Abort at the first No or when its vote timer fires
//     with votes missing. It writes the decision to its log (stable
//     storage), then sends it to every participant, which applies it.
//   - A prepared participant may not decide on its own: its inquiry timer
//     makes it ask the coordinator (Inquire{Tx}) until it hears the
//     decision, and it arms the timer again on restart while prepared
//     (recovery). The coordinator answers from its log; about a
//     transaction it has no record of and is not running, it presumes
//     Abort (a transaction whose votes it lost in a crash was never
//     committed), logs the abort and sends it.
//
// Every member can crash and restart (an external event of fuzz runs):
// its fields are lost, its stable storage is kept, and the messages in
// flight to it are dropped. The network is unordered: a message of a
// crashed incarnation may arrive after those of the next one, as on a
// fresh connection.
//
// Invariants (checked on the participants' stable storage, where every
// change of state is written as it happens):
//   - Atomicity(pi,pj): pi committed a transaction that pj aborted;
//     Atomicity(p): p was told to commit and to abort the same transaction;
//   - Validity(pi,pj): pi committed a transaction pj voted No for;
//   - UnilateralAbort(p): p aborted a transaction it had prepared without
//     the coordinator's decision.
//
// Bug switch:
//   - send-before-log: the coordinator sends its decision before the
//     decision reaches its log: the log is written later, when its flush
//     timer fires (a group commit that gives up the write-ahead rule). A
//     coordinator that crashes in between forgets a Commit some
//     participants may already have applied; when a prepared participant
//     that has not heard it asks, the restarted coordinator presumes
//     Abort.
package twophase

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// Option names.
const (
	OptParticipants  = "participants"
	OptTxs           = "txs"
	OptBeginWeight   = "begin-weight"
	OptPreferWeight  = "prefer-weight"
	OptRestartWeight = "restart-weight"
	BugSendBeforeLog = "send-before-log"
)

// Coordinator is the coordinator's actor ID.
const Coordinator record.ActorID = "coord"

// Storage keys.
const (
	logKey = "log" // the coordinator's decision log: map[int]bool (true: commit)
	txsKey = "txs" // a participant's transactions: map[int]TxRecord
)

// Messages. Begin and Prefer come from outside (a client, the fuzzer's
// draw of a participant's inclination); VoteTimeout, Flush and
// InquireTimeout are timers; the others travel between members.
type (
	// Begin asks the coordinator to run transaction Tx (1, 2, ...).
	Begin struct{ Tx int }
	// Prefer sets a participant's inclination for Tx: with Abort it votes
	// No when asked to prepare Tx.
	Prefer struct {
		Tx    int
		Abort bool
	}
	// Prepare asks a participant to vote on Tx.
	Prepare struct{ Tx int }
	// Vote is a participant's vote on Tx.
	Vote struct {
		Tx  int
		Yes bool
	}
	// Decision is the coordinator's outcome of Tx.
	Decision struct {
		Tx     int
		Commit bool
	}
	// Inquire asks the coordinator for the outcome of Tx.
	Inquire struct{ Tx int }
	// VoteTimeout aborts the transactions still waiting for votes.
	VoteTimeout struct{}
	// Flush writes the decisions not yet logged (send-before-log only).
	Flush struct{}
	// InquireTimeout makes a prepared participant ask for its outcomes.
	InquireTimeout struct{}
)

func (m Begin) String() string   { return fmt.Sprintf("Begin{tx%d}", m.Tx) }
func (m Prepare) String() string { return fmt.Sprintf("Prepare{tx%d}", m.Tx) }
func (m Inquire) String() string { return fmt.Sprintf("Inquire{tx%d}", m.Tx) }

func (m Prefer) String() string {
	if m.Abort {
		return fmt.Sprintf("Prefer{tx%d abort}", m.Tx)
	}
	return fmt.Sprintf("Prefer{tx%d commit}", m.Tx)
}

func (m Vote) String() string {
	if m.Yes {
		return fmt.Sprintf("Vote{tx%d yes}", m.Tx)
	}
	return fmt.Sprintf("Vote{tx%d no}", m.Tx)
}

func (m Decision) String() string {
	if m.Commit {
		return fmt.Sprintf("Decision{tx%d commit}", m.Tx)
	}
	return fmt.Sprintf("Decision{tx%d abort}", m.Tx)
}

// Ballot is a participant's vote as the coordinator holds it.
type Ballot int

// Ballots.
const (
	Missing Ballot = iota
	Yes
	No
)

// Decide is the coordinator's decision rule: with one ballot per
// participant, and timedOut when its vote timer fired, it returns whether
// the transaction is decided and, if so, whether it commits. It commits
// iff every participant voted Yes; it aborts at the first No, or at the
// timeout while a vote is missing.
func Decide(votes []Ballot, timedOut bool) (decided, commit bool) {
	all := true
	for _, b := range votes {
		switch b {
		case No:
			return true, false
		case Missing:
			all = false
		}
	}
	if all {
		return true, true
	}
	return timedOut, false
}

// Coord is the coordinator.
type Coord struct {
	parts []record.ActorID
	bug   bool

	votes   map[int][]Ballot // transactions waiting for votes
	decided map[int]bool     // decisions taken (true: commit)
	logged  map[int]bool     // the decisions in the log (stable storage)
}

func newCoord(parts []record.ActorID, bug bool) *Coord {
	return &Coord{parts: parts, bug: bug,
		votes: map[int][]Ballot{}, decided: map[int]bool{}, logged: map[int]bool{}}
}

// Known reports whether the coordinator runs or has decided Tx.
func (c *Coord) Known(tx int) bool {
	_, running := c.votes[tx]
	_, done := c.decided[tx]
	return running || done
}

// Snapshot shows the coordinator's state.
func (c *Coord) Snapshot() any {
	votes := map[string]string{}
	for tx, bs := range c.votes {
		var s strings.Builder
		for _, b := range bs {
			s.WriteByte("?YN"[b])
		}
		votes[fmt.Sprintf("tx%d", tx)] = s.String()
	}
	return map[string]any{"votes": votes, "decided": outcomes(c.decided), "logged": outcomes(c.logged)}
}

func outcomes(m map[int]bool) map[string]string {
	out := map[string]string{}
	for tx, commit := range m {
		out[fmt.Sprintf("tx%d", tx)] = map[bool]string{true: "commit", false: "abort"}[commit]
	}
	return out
}

// Start recovers the decision log. Transactions that were waiting for
// votes are forgotten: they are presumed aborted.
func (c *Coord) Start(ctx *record.Context) {
	if l, ok := ctx.Storage().Get(logKey); ok {
		c.logged = l.(map[int]bool)
		c.decided = maps.Clone(c.logged)
	}
}

// Receive handles one message.
func (c *Coord) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Begin:
		if m.Tx <= 0 || c.Known(m.Tx) {
			return
		}
		c.votes[m.Tx] = make([]Ballot, len(c.parts))
		for _, p := range c.parts {
			ctx.Send(p, Prepare{Tx: m.Tx})
		}
		ctx.SetTimer("votes", VoteTimeout{})
	case Vote:
		i := slices.Index(c.parts, from)
		if i < 0 {
			return
		}
		if commit, ok := c.decided[m.Tx]; ok {
			ctx.Send(from, Decision{Tx: m.Tx, Commit: commit})
			return
		}
		bs, ok := c.votes[m.Tx]
		if !ok {
			c.decide(ctx, m.Tx, false) // presumed abort
			return
		}
		if bs[i] == Missing {
			bs[i] = No
			if m.Yes {
				bs[i] = Yes
			}
		}
		if done, commit := Decide(bs, false); done {
			c.decide(ctx, m.Tx, commit)
		}
	case Inquire:
		if commit, ok := c.decided[m.Tx]; ok {
			ctx.Send(from, Decision{Tx: m.Tx, Commit: commit})
			return
		}
		if _, ok := c.votes[m.Tx]; ok {
			return // still voting: the participant asks again
		}
		if m.Tx > 0 {
			c.decide(ctx, m.Tx, false) // presumed abort
		}
	case VoteTimeout:
		for _, tx := range slices.Sorted(maps.Keys(c.votes)) {
			if done, commit := Decide(c.votes[tx], true); done {
				c.decide(ctx, tx, commit)
			}
		}
	case Flush:
		c.logged = maps.Clone(c.decided)
		ctx.Storage().Put(logKey, c.logged)
	}
}

// decide logs the outcome of tx, then sends it to every participant. With
// send-before-log, the log is written only when the flush timer fires.
func (c *Coord) decide(ctx *record.Context, tx int, commit bool) {
	delete(c.votes, tx)
	c.decided[tx] = commit
	if c.bug {
		ctx.SetTimer("flush", Flush{})
	} else {
		c.logged[tx] = commit
		ctx.Storage().Put(logKey, c.logged)
	}
	for _, p := range c.parts {
		ctx.Send(p, Decision{Tx: tx, Commit: commit})
	}
	if len(c.votes) == 0 {
		ctx.CancelTimer("votes")
	}
}

// Status is a participant's state of a transaction.
type Status int

// Statuses.
const (
	Unknown Status = iota
	Prepared
	Committed
	Aborted
)

func (s Status) String() string {
	return [...]string{"unknown", "prepared", "committed", "aborted"}[s]
}

// TxRecord is what a participant keeps of a transaction in stable
// storage: its status and ghost fields for the invariant.
type TxRecord struct {
	Status     Status
	VotedNo    bool // it voted No
	Unilateral bool // it aborted while prepared, without the coordinator's decision (no code path sets it: the invariant guards that none does)
	Conflict   bool // it was told the opposite of the outcome it applied
}

// Participant is one participant.
type Participant struct {
	txs   map[int]TxRecord // copy of stable storage
	abort map[int]bool     // inclinations (volatile): true to vote No
}

func newParticipant() *Participant {
	return &Participant{txs: map[int]TxRecord{}, abort: map[int]bool{}}
}

// Status returns the participant's status of tx.
func (p *Participant) Status(tx int) Status { return p.txs[tx].Status }

// Snapshot shows the participant's state.
func (p *Participant) Snapshot() any {
	txs := map[string]string{}
	for tx, r := range p.txs {
		txs[fmt.Sprintf("tx%d", tx)] = r.Status.String()
	}
	prefer := map[string]string{}
	for tx, a := range p.abort {
		prefer[fmt.Sprintf("tx%d", tx)] = map[bool]string{true: "abort", false: "commit"}[a]
	}
	return map[string]any{"txs": txs, "prefer": prefer}
}

// Start recovers the transactions; a prepared one makes it ask the
// coordinator for the outcome.
func (p *Participant) Start(ctx *record.Context) {
	if t, ok := ctx.Storage().Get(txsKey); ok {
		p.txs = t.(map[int]TxRecord)
	}
	if p.prepared() {
		ctx.SetTimer("inquire", InquireTimeout{})
	}
}

func (p *Participant) prepared() bool {
	for _, r := range p.txs {
		if r.Status == Prepared {
			return true
		}
	}
	return false
}

func (p *Participant) save(ctx *record.Context, tx int, r TxRecord) {
	p.txs[tx] = r
	ctx.Storage().Put(txsKey, p.txs)
}

// Receive handles one message.
func (p *Participant) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Prefer:
		if m.Tx > 0 {
			p.abort[m.Tx] = m.Abort
		}
	case Prepare:
		r := p.txs[m.Tx]
		switch r.Status {
		case Unknown:
			if p.abort[m.Tx] {
				r.Status, r.VotedNo = Aborted, true
				p.save(ctx, m.Tx, r)
				ctx.Send(from, Vote{Tx: m.Tx, Yes: false})
				return
			}
			r.Status = Prepared
			p.save(ctx, m.Tx, r) // the Yes vote is logged before it is sent
			ctx.Send(from, Vote{Tx: m.Tx, Yes: true})
			ctx.SetTimer("inquire", InquireTimeout{})
		case Prepared, Committed:
			ctx.Send(from, Vote{Tx: m.Tx, Yes: true})
		case Aborted:
			ctx.Send(from, Vote{Tx: m.Tx, Yes: false})
		}
	case Decision:
		r := p.txs[m.Tx]
		outcome := Aborted
		if m.Commit {
			outcome = Committed
		}
		switch r.Status {
		case Committed, Aborted:
			if r.Status == outcome || r.Conflict {
				return
			}
			r.Conflict = true
		default:
			r.Status = outcome
		}
		p.save(ctx, m.Tx, r)
		if !p.prepared() {
			ctx.CancelTimer("inquire")
		}
	case InquireTimeout:
		asked := false
		for _, tx := range slices.Sorted(maps.Keys(p.txs)) {
			if p.txs[tx].Status == Prepared {
				ctx.Send(Coordinator, Inquire{Tx: tx})
				asked = true
			}
		}
		if asked {
			ctx.SetTimer("inquire", InquireTimeout{})
		}
	}
}

func participants(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int(OptParticipants))
	for i := range ids {
		ids[i] = record.ActorID(fmt.Sprintf("p%d", i+1))
	}
	return ids
}

func members(o record.Options) []record.ActorID {
	return append([]record.ActorID{Coordinator}, participants(o)...)
}

// records returns a participant's transactions from its stable storage.
func records(v record.View, id record.ActorID) map[int]TxRecord {
	if t, ok := v.Storage(id).Get(txsKey); ok {
		return t.(map[int]TxRecord)
	}
	return nil
}

// invariant checks Atomicity, Validity and that no prepared participant
// aborts on its own, transaction by transaction.
func invariant(v record.View) *record.Violation {
	parts := participants(v.Options())
	recs := make([]map[int]TxRecord, len(parts))
	txs := map[int]bool{}
	for i, id := range parts {
		recs[i] = records(v, id)
		for tx := range recs[i] {
			txs[tx] = true
		}
	}
	for _, tx := range slices.Sorted(maps.Keys(txs)) {
		committer, aborter, noVoter := -1, -1, -1
		for i := range parts {
			r := recs[i][tx]
			switch {
			case r.Status == Committed && committer < 0:
				committer = i
			case r.Status == Aborted && aborter < 0:
				aborter = i
			}
			if r.VotedNo && noVoter < 0 {
				noVoter = i
			}
		}
		if committer >= 0 && aborter >= 0 {
			return &record.Violation{
				Fingerprint: fmt.Sprintf("Atomicity(%s,%s)", parts[committer], parts[aborter]),
				Detail:      fmt.Sprintf("%s committed tx%d, which %s aborted", parts[committer], tx, parts[aborter]),
			}
		}
		if committer >= 0 && noVoter >= 0 {
			return &record.Violation{
				Fingerprint: fmt.Sprintf("Validity(%s,%s)", parts[committer], parts[noVoter]),
				Detail:      fmt.Sprintf("%s committed tx%d, which %s voted No for", parts[committer], tx, parts[noVoter]),
			}
		}
		for i, id := range parts {
			r := recs[i][tx]
			if r.Conflict {
				return &record.Violation{
					Fingerprint: fmt.Sprintf("Atomicity(%s)", id),
					Detail:      fmt.Sprintf("%s applied %s to tx%d, then was told the opposite", id, r.Status, tx),
				}
			}
			if r.Unilateral {
				return &record.Violation{
					Fingerprint: fmt.Sprintf("UnilateralAbort(%s)", id),
					Detail:      fmt.Sprintf("%s aborted tx%d while prepared, without the coordinator's decision", id, tx),
				}
			}
		}
	}
	return nil
}

// coordKnows reports whether the coordinator runs or decided tx (a Begin
// of it would change nothing).
func coordKnows(v record.View, tx int) bool {
	if c, ok := v.Actor(Coordinator).(*Coord); ok && v.Running(Coordinator) {
		return c.Known(tx)
	}
	if l, ok := v.Storage(Coordinator).Get(logKey); ok {
		_, done := l.(map[int]bool)[tx]
		return done
	}
	return false
}

// undecided reports whether a participant has not voted on tx yet (a
// Prefer of it can still change its vote).
func undecided(v record.View, id record.ActorID, tx int) bool {
	return records(v, id)[tx].Status == Unknown
}

// makeExternal draws one external event by the weight options: a Begin of
// a transaction the coordinator does not know, a Prefer to a participant
// that has not voted on it yet, or a crash-restart of a member.
func makeExternal(r *rand.Rand, v record.View) (record.Event, bool) {
	o := v.Options()
	wb, wp, wr := max(0, o.Int(OptBeginWeight)), max(0, o.Int(OptPreferWeight)), max(0, o.Int(OptRestartWeight))
	if wb+wp+wr == 0 {
		return record.Event{}, false
	}
	k := r.IntN(wb + wp + wr)
	tx := 1 + r.IntN(o.Int(OptTxs))
	switch {
	case k < wb:
		if coordKnows(v, tx) {
			return record.Event{}, false
		}
		return record.SendEvent(Coordinator, Begin{Tx: tx}), true
	case k < wb+wp:
		ps := participants(o)
		id := ps[r.IntN(len(ps))]
		abort := r.IntN(2) == 0
		if !undecided(v, id, tx) {
			return record.Event{}, false
		}
		return record.SendEvent(id, Prefer{Tx: tx, Abort: abort}), true
	default:
		ms := v.Members()
		id := ms[r.IntN(len(ms))]
		if !v.Running(id) {
			return record.Event{}, false
		}
		return record.RestartEvent(id), true
	}
}

// eachExternal lists the events makeExternal could return in v.
func eachExternal(v record.View) []record.Event {
	o := v.Options()
	var evs []record.Event
	for tx := 1; tx <= o.Int(OptTxs); tx++ {
		if o.Int(OptBeginWeight) > 0 && !coordKnows(v, tx) {
			evs = append(evs, record.SendEvent(Coordinator, Begin{Tx: tx}))
		}
	}
	if o.Int(OptPreferWeight) > 0 {
		for _, id := range participants(o) {
			for tx := 1; tx <= o.Int(OptTxs); tx++ {
				if undecided(v, id, tx) {
					evs = append(evs, record.SendEvent(id, Prefer{Tx: tx, Abort: true}),
						record.SendEvent(id, Prefer{Tx: tx, Abort: false}))
				}
			}
		}
	}
	if o.Int(OptRestartWeight) > 0 {
		for _, id := range v.Members() {
			if v.Running(id) {
				evs = append(evs, record.RestartEvent(id))
			}
		}
	}
	return evs
}

// System returns the two-phase commit system definition.
func System() *record.System {
	return &record.System{
		Name: "twophase",
		Doc:  "two-phase commit (presumed abort) with crash recovery: a coordinator and participants",
		Options: []record.OptionSpec{
			{Name: OptParticipants, Default: "3", Usage: "number of participants", Min: 1, Max: 8},
			{Name: OptTxs, Default: "3", Usage: "transactions are drawn from 1..txs", Min: 1, Max: 9},
			{Name: OptBeginWeight, Default: "4", Usage: "fuzzing weight of client Begins", Min: 0, Max: 1000},
			{Name: OptPreferWeight, Default: "2", Usage: "fuzzing weight of vote inclinations (Prefer)", Min: 0, Max: 1000},
			{Name: OptRestartWeight, Default: "1", Usage: "fuzzing weight of crash-restarts", Min: 0, Max: 1000},
			{Name: BugSendBeforeLog, Default: "false", Bug: true,
				Usage: "the coordinator sends its decision before logging it (the log is flushed on a timer)"},
		},
		Members: members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			if id == Coordinator {
				return newCoord(participants(o), o.Bool(BugSendBeforeLog))
			}
			return newParticipant()
		},
		Messages: []record.Message{Begin{}, Prefer{}, Prepare{}, Vote{}, Decision{}, Inquire{},
			VoteTimeout{}, Flush{}, InquireTimeout{}},
		Invariant: invariant,
		Network:   func(record.Options) record.Semantics { return record.Unordered },
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range members(o) {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Externals: []record.Generator{{Name: "2pc-external", Weight: 1, Make: makeExternal, Each: eachExternal}},
		Swarm: &record.SwarmSpec{
			Options: []record.SwarmOption{
				// Transactions are the workload: always on.
				{Name: OptBeginWeight, Off: 0, Min: 2, Max: 20},
				{Name: OptPreferWeight, Off: 0.3, Min: 1, Max: 20},
				{Name: OptRestartWeight, Off: 0.3, Min: 1, Max: 6},
			},
			TimerProb:    [2]float64{0.01, 0.2},
			TimerMembers: 4,
		},
	}
}

package raft

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// logMatching bounds LogMatching(a,b): a and b, both running and
// bootstrapped, hold entries of one term at an index k whose logs differ
// at an index j <= k (j = k too: two different entries of one term at
// one index, as invariants.go checks). Its claims hold under every bug
// switch, because none changes where entries come from or how a log
// changes:
//
//   - A member's log changes only on two deliveries to it: an
//     AppendEntries of a term at least its own while it is not a leader
//     (onAppendEntries), or a ClientCommand while it is a leader
//     (onClientCommand). A crash-restart restores the log it had (every
//     change is persisted at once), and a member's term never falls.
//   - An entry is created only there, by a leader handling a
//     ClientCommand, with the leader's term and the command's Cmd; every
//     other entry is a copy (AppendEntries carry entries of the sender's
//     log; forwarding a ClientCommand keeps its Cmd). Only a leader sends
//     AppendEntries (sendAppend runs in a leader's handlers only).
//   - Every election a member wins ends with one delivery to it (the
//     ElectionTimeout, with a majority of one, or the last Vote), one per
//     win.
//
// So, from a state without the violation, a run that reaches it needs:
//
//   - a and b running and bootstrapped (their starts and Bootstraps, as
//     own counts them);
//   - one log-changing delivery to a or b, and one to each of them whose
//     log is shorter than the index k can be: 1, or 2 when every Cmd
//     there is or can be is the same (then a[j] and b[j] differ in term,
//     so j < k; one AppendEntries may bring two entries); not so when a
//     member not running may start with a log nobody sees;
//   - two different entries (a and b differ at j): each ClientCommand a
//     leader handles creates at most one new entry value, so the values
//     missing cost that many such deliveries, and ClientCommands in flight
//     or to come from outside (the externals counted) to carry them; too
//     few to come makes it unreachable. When every Cmd there is or can be
//     is the same, two different entries have different terms, and a term
//     missing needs its own leader: an election won, unless a leader now
//     leads a term no entry has (each counted as lead does, the term raise
//     left out since it may be a counted delivery, and the second at one
//     more delivery, its winning one);
//   - for a (and b) with a log shorter than that, not a leader, with no
//     AppendEntries of a term at least its own in flight to it and no
//     leader of such a term now: an election won in a term at least its
//     own (the AppendEntries it needs come from such a leader, or it must
//     lead one itself); when another member wins it, on a FIFO network
//     the empty AppendEntries that leader sends first is one more
//     delivery to it (see firstAppendEmpty).
//
// The parts count different deliveries (Bootstraps and starts of a and b;
// timeouts, RequestVotes, Votes and other members' Bootstraps; the
// ClientCommands and AppendEntries to a and b; ClientCommand sends), so
// they add up; the two election parts may be the same election, so only
// the larger counts. What is unknown is relaxed to nothing: a member not
// running may hold any log in its storage (then no entry is counted
// missing), a member not running may be anything.
func (b *bounder) logMatching(x, y record.ActorID) int {
	ai, bi := b.index(x), b.index(y)
	if ai < 0 || bi < 0 || ai == bi {
		return 0
	}
	na, nb := b.nodes[ai], b.nodes[bi]
	if na != nil && nb != nil && na.Bootstrapped() && nb.Bootstrapped() {
		if _, _, broken := logsDiverge(na.log, nb.log); broken {
			return 0 // the invariant's own test (invariants.go)
		}
	}
	c := b.own(ai, bi)
	e := b.entries()

	// The log-changing deliveries to a and b: k, the index of the
	// common term, is at least 1, and at least 2 when the entries that
	// differ at j must differ in term.
	minLen := 1
	if !e.unknown && e.sameCmd {
		minLen = 2
	}
	short := 0
	for _, n := range []*Node{na, nb} {
		if n != nil && len(n.log) < minLen {
			short++
		}
	}
	changes := short
	if na != nil && nb != nil {
		changes = max(changes, 1)
	}

	// The entries missing, and the elections they need.
	need, elections := 0, 0
	switch {
	case e.unknown:
	case e.sameCmd:
		need = max(0, 2-len(e.terms))
		elections = max(0, need-e.freshLeaders)
	default:
		need = max(0, 2-len(e.values))
		if need > 0 && !e.leader {
			elections = 1
		}
	}
	if need > e.commands+e.commandsToCome {
		return impossible
	}
	c += max(changes, need)
	if b.g.CountExternals {
		c += max(0, need-e.commands)
	}

	elect := 0
	if elections > 0 {
		elect = b.electionFrom(0, -1) + elections - 1
	}
	for i, n := range []*Node{na, nb} {
		if n == nil || len(n.log) >= minLen || b.reaches(n) {
			continue
		}
		mi := []int{ai, bi}[i]
		other := b.electionFrom(n.term, mi)
		if b.firstAppendEmpty() {
			other++
		}
		elect = max(elect, min(b.election(mi, n.term), other))
	}
	return c + elect
}

// firstAppendEmpty reports whether a member must get a new leader's
// empty AppendEntries before any that carries entries: on a FIFO network
// a leader's first message to each member after it wins is the empty
// AppendEntries of initLeader, so one more delivery, unless the
// initialisation is deferred (raft-58a: a ClientCommand may come first)
// or the empty one may be dropped (a cut link, or a partition, kill or
// crash-restart to come: messages to a member down or cut off are lost).
func (b *bounder) firstAppendEmpty() bool {
	o := b.g.View.Options()
	if o.Bool(OptUnordered) || o.Bool(Bug66) || o.Bool(Bug58a) {
		return false
	}
	for _, e := range b.g.Future {
		if e.Kind != record.Start && e.Kind != record.Send {
			return false
		}
	}
	for _, x := range b.members {
		for _, y := range b.members {
			if x != y && b.g.View.Partitioned(x, y) {
				return false
			}
		}
	}
	return true
}

// entrySupply is what a state holds and may still get of entries: the
// distinct entry values (up to two) and terms in the running members'
// logs and the AppendEntries in flight, the ClientCommands in flight and
// to come, and whether every Cmd there is or can be is the same. (Small
// slices, not maps: the bound runs at every state a search expands.)
type entrySupply struct {
	values []Entry
	terms  []int
	// unknown: a member not running may start again with a log nobody
	// sees.
	unknown bool
	// sameCmd: at most one Cmd value among the entries and the
	// ClientCommands in flight and to come.
	sameCmd bool
	// leader: a running member is a leader; freshLeaders of them lead a
	// term no entry has.
	leader       bool
	freshLeaders int
	// commands in flight, commandsToCome from outside.
	commands, commandsToCome int
}

func (b *bounder) entries() entrySupply {
	e := entrySupply{sameCmd: true}
	cmd, anyCmd := 0, false
	seeCmd := func(c int) {
		if anyCmd && c != cmd {
			e.sameCmd = false
		}
		cmd, anyCmd = c, true
	}
	add := func(en Entry) {
		if len(e.values) < 2 && !slices.Contains(e.values, en) {
			e.values = append(e.values, en)
		}
		if !slices.Contains(e.terms, en.Term) {
			e.terms = append(e.terms, en.Term)
		}
		seeCmd(en.Cmd)
	}
	for i, n := range b.nodes {
		if n == nil {
			e.unknown = e.unknown || b.start[i]
			continue
		}
		for _, en := range n.log {
			add(en)
		}
	}
	for _, p := range b.g.InFlight {
		switch m := p.Msg.(type) {
		case AppendEntries:
			for _, en := range m.Entries {
				add(en)
			}
		case ClientCommand:
			e.commands++
			seeCmd(m.Cmd)
		}
	}
	for _, ev := range b.g.Future {
		if m, ok := ev.Msg.(ClientCommand); ok && ev.Kind == record.Send {
			e.commandsToCome++
			seeCmd(m.Cmd)
		}
	}
	for _, n := range b.nodes {
		if n != nil && n.role == Leader {
			e.leader = true
			if !slices.Contains(e.terms, n.term) {
				e.freshLeaders++
			}
		}
	}
	return e
}

// reaches reports whether a log-changing delivery to n needs no new
// election: n leads, a running member leads a term at least n's, or an
// AppendEntries of such a term is in flight to n.
func (b *bounder) reaches(n *Node) bool {
	for _, m := range b.nodes {
		if m != nil && m.role == Leader && m.term >= n.term {
			return true
		}
	}
	for _, p := range b.g.InFlight {
		if ae, ok := p.Msg.(AppendEntries); ok && p.To == n.id && ae.Term >= n.term {
			return true
		}
	}
	return false
}

// electionFrom is the least an election won in a term at least t costs
// over every member but skip (see election).
func (b *bounder) electionFrom(t, skip int) int {
	best := impossible
	for i := range b.nodes {
		if i != skip {
			best = min(best, b.election(i, t))
		}
	}
	return best
}

// election is the least member i spends on winning an election in a term
// at least t (as lead counts it, without the term raise; a member
// leading now must step down and win a new one): its timeouts, Votes and
// RequestVotes, and its start and Bootstrap and its voters' Bootstraps
// unless own counted them already.
func (b *bounder) election(i, t int) int {
	b.noRaise = true
	defer func() { b.noRaise = false }()
	n := b.nodes[i]
	c := 0
	if !b.leading[i] {
		if n == nil {
			c += b.ext()
		}
		c += b.boot[i]
	}
	cand, ok := b.options(i, false)
	if !ok {
		return c // not running: anything
	}
	if n.role == Leader {
		cand.opts = b.fresh(n, n.majority(), n.members)
	}
	saved := b.leading[i]
	b.leading[i] = true
	defer func() { b.leading[i] = saved }()
	best := impossible
	for _, o := range cand.opts {
		if o.hi >= t {
			best = min(best, c+o.own+b.voters([]candidate{cand}, []option{o}, false))
		}
	}
	return best
}

package raft

import (
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// lowerBound is the system's record.System.LowerBound: a lower bound on
// the events any run from a state still needs before it shows the
// violation searched for, which lets the optimum search (package optimal)
// cut states that cannot reach it within their budget. It knows four
// targets and returns 0 for any other (StateMachineSafety, other
// panics):
//
//   - ElectionSafety(a,b): a and b leaders of one term;
//   - LogMatching(a,b): two logs that differ below an index where they
//     hold entries of one term (lowerbound_logmatching.go);
//   - LeaderCompleteness(x): x a leader while a committed entry it lacks
//     exists: x must be a leader, and someone must have committed;
//   - the panics "leader x has a nextIndex/matchIndex beyond its log": x
//     must be a leader (sendAppend and maybeCommit run only in a leader).
//
// It counts deliveries per receiver and message type, so the parts add
// up (each delivery has one receiver and one message). A member that must
// lead a term T needs: its Bootstrap, if it has none; unless it is already
// a candidate of T, the ElectionTimeout that makes it one, and one more
// delivery (another timeout, or a message of a higher term) when T is
// more than one above its term; a Vote delivered to it for every vote it
// lacks. Every vote not already in flight as a granted Vote costs a
// RequestVote delivered to a voter, and the voters used must be
// bootstrapped. With repeated votes counting (raft-45), more RequestVotes
// to one voter than the candidate sends when it starts its election cost
// RetryVotes timers.
//
// Voters are shared out: a member grants one candidate per term (it votes
// for whom its votedFor names, which only a new term resets), and a
// leader of T never voted for anyone else in T, so two leaders of T used
// disjoint voters and not each other, unless votes of earlier terms count
// (raft-46, where neither holds) or a candidate that steps down forgets
// its vote (raft-56, where a voter that was a candidate when it granted
// the first may grant a second: its ElectionTimeout is counted). The
// bound tries every sharing out of the voters (up to maxVoters of them).
//
// Everything else is relaxed to nothing: a vote in flight counts whatever
// its term, any voter may grant, a member not running may be anything
// (only its start is counted). With external events counted
// (Goal.CountExternals), a Bootstrap or client command that must still be
// sent from outside costs one more. What Goal.Future lacks cannot happen:
// a member that is not running and has no start to come, a Bootstrap that
// will never arrive.
func lowerBound(g record.Goal) int {
	if g.Want == nil {
		return 0
	}
	for _, b := range HardBugNames() {
		if g.View.Options().Bool(b) {
			return 0 // the bound's reasoning assumes none of these mistakes
		}
	}
	fp := g.Want.Fingerprint
	var c int
	if ids, ok := targetOf(fp, ElectionSafety); ok && len(ids) == 2 {
		c = newBounder(g).electionSafety(ids[0], ids[1])
	} else if ids, ok := targetOf(fp, LogMatching); ok && len(ids) == 2 {
		c = newBounder(g).logMatching(ids[0], ids[1])
	} else if ids, ok := targetOf(fp, LeaderCompleteness); ok && len(ids) == 1 {
		c = newBounder(g).leaderCompleteness(ids[0])
	} else if id, ok := panicLeader(fp); ok {
		c = newBounder(g).lead(id)
	}
	return min(c, impossible)
}

// targetOf parses a fingerprint "inv(a,b,...)" of invariant inv.
func targetOf(fp, inv string) ([]record.ActorID, bool) {
	rest, ok := strings.CutPrefix(fp, inv+"(")
	if !ok {
		return nil, false
	}
	rest, ok = strings.CutSuffix(rest, ")")
	if !ok {
		return nil, false
	}
	var ids []record.ActorID
	for _, s := range strings.Split(rest, ",") {
		ids = append(ids, record.ActorID(s))
	}
	return ids, true
}

// panicLeader parses the fingerprint of the assertions that only a leader
// can fail: "panic: assertion failed: leader X has a nextIndex beyond its
// log @ ..." (and matchIndex).
func panicLeader(fp string) (record.ActorID, bool) {
	rest, ok := strings.CutPrefix(fp, "panic: assertion failed: leader ")
	if !ok {
		return "", false
	}
	id, tail, ok := strings.Cut(rest, " has a ")
	if !ok || !(strings.HasPrefix(tail, "nextIndex beyond its log") || strings.HasPrefix(tail, "matchIndex beyond its log")) {
		return "", false
	}
	return record.ActorID(id), true
}

// impossible is the cost of what cannot happen (record.Unreachable).
const impossible = record.Unreachable

// anyTerm is the upper end of an open range of terms.
const anyTerm = 1 << 30

// maxVoters bounds the voters shared out exhaustively (3 or 4 ways each);
// with more, the voters cost nothing (a relaxation).
const maxVoters = 6

// bounder holds what the parts of a bound read from one state.
type bounder struct {
	g       record.Goal
	members []record.ActorID
	nodes   []*Node // by member index; nil when not running
	// granted[i*n+j] counts the granted Votes in flight from member i to
	// member j, and asked[i*n+j] the RequestVotes.
	granted, asked []int
	// boot[i] is what bootstrapping member i costs (see newBounder).
	boot []int
	// lists[i]: the member lists member i may still be bootstrapped
	// with, when it is not.
	lists [][][]record.ActorID
	// start[i]: member i is not running and a Start of it is to come.
	start []bool
	// command: a client command is in flight or to come from outside.
	command, commandSent bool
	// commitSent: an AppendEntries in flight carries a commit index.
	commitSent bool
	// leading[i]: member i must lead (its Bootstrap is counted by own).
	leading []bool
	// noRaise: do not count the delivery that raises a term (see fresh).
	noRaise bool
}

func newBounder(g record.Goal) *bounder {
	ms := g.View.Members()
	n := len(ms)
	b := &bounder{g: g, members: ms, nodes: make([]*Node, n), granted: make([]int, n*n), asked: make([]int, n*n),
		boot: make([]int, n), lists: make([][][]record.ActorID, n), start: make([]bool, n), leading: make([]bool, n)}
	sent := make([]bool, n)
	for i, id := range ms {
		if nd, ok := g.View.Actor(id).(*Node); ok {
			b.nodes[i] = nd
		}
	}
	for _, p := range g.InFlight {
		i, j := b.index(p.From), b.index(p.To)
		switch m := p.Msg.(type) {
		case Vote:
			if m.Granted && i >= 0 && j >= 0 {
				b.granted[i*n+j]++
			}
		case RequestVote:
			if i >= 0 && j >= 0 {
				b.asked[i*n+j]++
			}
		case Bootstrap:
			if j >= 0 {
				sent[j] = true
				b.lists[j] = append(b.lists[j], m.Members)
			}
		case ClientCommand:
			b.commandSent = true
		case AppendEntries:
			b.commitSent = b.commitSent || m.LeaderCommit > 0
		}
	}
	b.command = b.commandSent
	future := make([]bool, n) // a Bootstrap is to come
	for _, e := range g.Future {
		j := b.index(e.To)
		switch e.Kind {
		case record.Start:
			if k := b.index(e.Actor); k >= 0 && b.nodes[k] == nil {
				b.start[k] = true
			}
		case record.Send:
			switch m := e.Msg.(type) {
			case Bootstrap:
				if j >= 0 {
					future[j] = true
					b.lists[j] = append(b.lists[j], m.Members)
				}
			case ClientCommand:
				b.command = true
			}
		}
	}
	for i, nd := range b.nodes {
		switch {
		case nd == nil && b.start[i]:
			// Not running: whether it was ever bootstrapped is in its
			// storage; relaxed to nothing.
		case nd == nil:
			b.boot[i] = impossible // never runs again
		case nd.Bootstrapped():
			// A member that ever was keeps its member list in stable
			// storage, so a running member that is not never was.
		case sent[i]:
			b.boot[i] = 1
		case future[i]:
			b.boot[i] = 1 + b.ext()
		default:
			b.boot[i] = impossible // no Bootstrap will ever reach it
		}
	}
	return b
}

func (b *bounder) index(id record.ActorID) int {
	for i, m := range b.members {
		if m == id {
			return i
		}
	}
	return -1
}

// ext is 1 when external events count, else 0.
func (b *bounder) ext() int {
	if b.g.CountExternals {
		return 1
	}
	return 0
}

// option is one way for a member to lead: a term it led (nothing to do),
// the term it is a candidate of, the next term, or any term after that.
type option struct {
	lo, hi int // the terms it can lead this way
	own    int // deliveries to the member itself: timeouts, a term raise, the Votes it lacks
	k      int // the votes it lacks
	// fresh: a new election (every voter is asked once when it starts);
	// else the current one, whose voters that voted are out unless
	// repeated votes count.
	fresh bool
	now   bool             // it is a leader now
	list  []record.ActorID // its members: the voters are the others
}

// candidate is a member that must lead, with its ways to.
type candidate struct {
	i    int
	n    *Node
	opts []option
}

// options lists the ways member i can lead. With ledOK, a term it already
// led counts (ElectionSafety reads the persistent ghost of led terms);
// without, it must be a leader now or become one. ok is false when its
// state is unknown (not running): it is then left out.
func (b *bounder) options(i int, ledOK bool) (candidate, bool) {
	n := b.nodes[i]
	if n == nil {
		return candidate{}, false
	}
	c := candidate{i: i, n: n}
	if !n.Bootstrapped() {
		// Never bootstrapped: it never led, is a follower of its term,
		// and its quorum is that of the Bootstrap it will get.
		for _, l := range b.lists[i] {
			if !slices.Contains(l, n.id) {
				l = append(slices.Clone(l), n.id)
			}
			c.opts = append(c.opts, b.fresh(n, len(l)/2+1, l)...)
		}
		return c, true
	}
	if ledOK {
		for _, t := range n.ledTerms {
			c.opts = append(c.opts, option{lo: t, hi: t})
		}
	} else if n.role == Leader {
		c.opts = []option{{lo: n.term, hi: n.term, now: true}}
		return c, true
	}
	maj := n.majority()
	if n.role == Candidate && n.voteCount < maj {
		k := maj - n.voteCount
		c.opts = append(c.opts, option{lo: n.term, hi: n.term, own: k, k: k, list: n.members})
	}
	c.opts = append(c.opts, b.fresh(n, maj, n.members)...)
	return c, true
}

// fresh is the options of a new election of a member of term n.term with
// majority maj: of the next term (a timeout), or of a later one (a
// timeout and one more delivery: a timeout, or a message of a higher
// term, before it).
//
// The delivery that raises its term may also be one counted elsewhere:
// a RequestVote it grants another candidate (when votes of earlier terms
// count, raft-46, the other leader may be its voter), or an
// AppendEntries that commits (see leaderCompleteness). It is counted
// only when neither can be (b.noRaise is false).
func (b *bounder) fresh(n *Node, maj int, list []record.ActorID) []option {
	k := maj - 1
	raise := 1
	if n.bugs.staleVotes || b.noRaise {
		raise = 0
	}
	return []option{
		{lo: n.term + 1, hi: n.term + 1, own: 1 + k, k: k, fresh: true, list: list},
		{lo: n.term + 2, hi: anyTerm, own: 1 + raise + k, k: k, fresh: true, list: list},
	}
}

// own is what the members that must lead need before any option: a start
// when not running (an external event) and a Bootstrap. It marks them
// leading.
func (b *bounder) own(ids ...int) int {
	c := 0
	for _, i := range ids {
		b.leading[i] = true
		if b.nodes[i] == nil {
			c += b.ext()
		}
		c += b.boot[i]
	}
	return c
}

// lead is the bound for "x is a leader" (a panic only a leader can hit).
func (b *bounder) lead(x record.ActorID) int {
	i := b.index(x)
	if i < 0 {
		return 0
	}
	c := b.own(i)
	cand, ok := b.options(i, false)
	if !ok {
		return c
	}
	best := impossible
	for _, o := range cand.opts {
		best = min(best, o.own+b.voters([]candidate{cand}, []option{o}, false))
	}
	return c + best
}

// electionSafety bounds "x and y were both leader in one term".
func (b *bounder) electionSafety(x, y record.ActorID) int {
	i, j := b.index(x), b.index(y)
	if i < 0 || j < 0 || i == j {
		return 0
	}
	c := b.own(i, j)
	ci, oki := b.options(i, true)
	cj, okj := b.options(j, true)
	switch {
	case !oki && !okj:
		return c
	case !oki || !okj:
		// One is not running: its led terms are unknown; count the
		// other alone.
		one := ci
		if !oki {
			one = cj
		}
		best := impossible
		for _, o := range one.opts {
			best = min(best, o.own+b.voters([]candidate{one}, []option{o}, false))
		}
		return c + best
	}
	best := impossible
	for _, o := range ci.opts {
		for _, p := range cj.opts {
			if max(o.lo, p.lo) > min(o.hi, p.hi) {
				continue // no common term
			}
			if o.own+p.own >= best {
				continue
			}
			best = min(best, o.own+p.own+b.voters([]candidate{ci, cj}, []option{o, p}, false))
		}
	}
	return c + best
}

// leaderCompleteness bounds "x is a leader lacking an entry someone
// committed in an earlier term": x must be a leader (see lead) and, when
// nobody running has committed anything, a delivery must commit an entry
// (an AppendEntries to a follower, or a ClientCommand or an
// AppendEntriesResponse to a leader: none of the deliveries lead counts);
// when nobody has an entry and no client command is in flight, an
// external one must be sent, and none to come makes it unreachable,
// unless an AppendEntries in flight carries a commit index (a leader
// killed for good may have sent its entries and commit: whoever gets it
// commits).
//
// The delivery that commits may be the one that raises x's term (an
// AppendEntries of a higher term), so the bound is the larger of the
// leader's part with that raise and without it plus the commit.
func (b *bounder) leaderCompleteness(x record.ActorID) int {
	c := b.lead(x)
	// all: every member is known: running, or never to run again (no
	// Start to come: it can neither commit nor lead).
	committed, entries, all := false, false, true
	for i, n := range b.nodes {
		if n == nil {
			all = all && !b.start[i]
			continue
		}
		committed = committed || len(n.committed) > 0
		entries = entries || len(n.log) > 0
	}
	if committed {
		return c
	}
	b.noRaise = true
	d := b.lead(x) + 1
	b.noRaise = false
	if all && !entries && !b.commandSent && !b.commitSent {
		if !b.command {
			return impossible
		}
		d += b.ext()
	}
	if !all || b.commitSent {
		return max(c, d)
	}
	return max(c, d, b.twoLeaders(x))
}

// twoLeaders bounds LeaderCompleteness when nobody has committed and no
// AppendEntries in flight carries a commit index: a member L must first
// commit an entry as the leader of a term T1 (a follower commits only
// what a leader's commit index says), and x lead a later term T2 (the
// member that learned the commit was in a term at least T1 and below
// T2). L may be x, leading twice; x may be a leader now, of a term
// below T1, that steps down and is elected again (its new elections are
// ways too, not only the term it leads now). Both elections count as in
// lead, with voters shared freely (different terms) and no term raise
// (it might be a delivery counted for the other election or the
// commit). L leading now needs no other way: a later term of L costs
// no less and leaves x fewer terms.
// The commit costs what commitCost says.
func (b *bounder) twoLeaders(x record.ActorID) int {
	xi := b.index(x)
	if xi < 0 {
		return 0
	}
	b.noRaise = true
	defer func() { b.noRaise = false }()
	best := impossible
	for li := range b.members {
		if b.nodes[li] == nil {
			continue // never runs again (see leaderCompleteness)
		}
		clear(b.leading)
		var base int
		if li == xi {
			base = b.own(li) // its start and Bootstrap once
		} else {
			base = b.own(li, xi)
		}
		cl, ok := b.options(li, false)
		if !ok {
			return 0
		}
		cx, ok := b.options(xi, false)
		if !ok {
			return 0
		}
		if cx.n.role == Leader {
			// A leader now (of an older term than L's) may step down
			// and be elected again after L commits: its new elections
			// are ways too, not only the term it leads now.
			cx.opts = append(cx.opts, b.fresh(cx.n, cx.n.majority(), cx.n.members)...)
		}
		for _, o := range cl.opts {
			commit, cc := commitCost(cl.n, o)
			if cc && !b.commandSent {
				if !b.command {
					continue
				}
				commit += b.ext()
			}
			var seconds []option
			if li == xi {
				// Its second election, a fresh one, after the first.
				list := o.list
				if list == nil {
					list = cx.n.members
				}
				maj := len(list)/2 + 1
				seconds = []option{{lo: o.lo + 1, hi: anyTerm, own: maj, k: maj - 1, fresh: true, list: list}}
			} else {
				for _, p := range cx.opts {
					if p.hi > o.lo {
						seconds = append(seconds, p)
					}
				}
			}
			for _, p := range seconds {
				c := base + o.own + p.own + commit
				if c >= best {
					continue
				}
				best = min(best, c+b.voters([]candidate{cl, cx}, []option{o, p}, true))
			}
		}
	}
	return best
}

// voters is the least the votes the candidates lack (each by its option)
// cost their voters: the RequestVotes, RetryVotes timers and Bootstraps,
// over every sharing out of the voters between them (see lowerBound).
//
// With shared, the candidates lead different terms: a voter may serve
// both at no extra cost, and a candidate may vote for the other.
func (b *bounder) voters(cs []candidate, os []option, shared bool) int {
	need := false
	for _, o := range os {
		need = need || o.k > 0
	}
	if !need {
		return 0
	}
	n := len(b.members)
	// The voters each candidate may ask, by member index: its list but
	// itself, the other candidates unless earlier terms' votes count,
	// and in its current election those that voted unless repeated
	// votes count. Votes in flight are free and, without repeated
	// votes, their voters are not asked again.
	type want struct {
		elig    []bool
		free    int
		dup     bool
		k       int
		fresh   bool
		cand, i int
	}
	ws := make([]want, len(cs))
	var pool []int // voters some candidate may ask
	inPool := make([]bool, n)
	stale, forget := shared, false
	for x, c := range cs {
		stale = stale || c.n.bugs.staleVotes
		forget = forget || c.n.bugs.forgetVote
		w := want{elig: make([]bool, n), dup: c.n.bugs.dupVotes, k: os[x].k, fresh: os[x].fresh, i: c.i}
		for vi, id := range os[x].list {
			j := b.index(id)
			if j < 0 || j == c.i {
				continue
			}
			if !os[x].fresh && !w.dup && vi < len(c.n.votes) && c.n.votes[vi] {
				continue
			}
			if w.dup {
				w.free += b.granted[j*n+c.i]
			} else if b.granted[j*n+c.i] > 0 {
				w.free++
				continue
			}
			w.elig[j] = true
		}
		ws[x] = w
	}
	for x := range ws {
		for j := range n {
			if !ws[x].elig[j] {
				continue
			}
			if !stale && b.leading[j] && len(cs) > 1 {
				// A leader of T voted for nobody else in T.
				ws[x].elig[j] = false
				continue
			}
			if !inPool[j] {
				inPool[j] = true
				pool = append(pool, j)
			}
		}
	}
	if len(pool) > maxVoters {
		return 0
	}
	// Share out: each voter to nobody, to one candidate, or (when votes
	// of earlier terms count, or a candidate forgets its vote on
	// stepping down) to both.
	ways := len(cs) + 1
	if len(cs) > 1 && (stale || forget) {
		ways++
	}
	assign := make([]int, len(pool))
	best := impossible
	for {
		c := 0
		for p, j := range pool {
			if assign[p] == 0 {
				continue
			}
			if !b.leading[j] {
				c += b.boot[j] // a leader's is counted by own
			}
			if assign[p] == len(cs)+1 && !stale {
				// Granting two candidates in one term: it was a
				// candidate when it granted the first.
				if nd := b.nodes[j]; nd == nil || nd.role != Candidate {
					c++
				}
			}
		}
		for x := range ws {
			if c >= best {
				break
			}
			c += b.asks(ws[x].elig, pool, assign, x+1, len(cs)+1, ws[x].k, ws[x].free, ws[x].dup, ws[x].fresh, ws[x].i)
		}
		best = min(best, c)
		// Next sharing out.
		p := 0
		for ; p < len(assign); p++ {
			assign[p]++
			if assign[p] < ways {
				break
			}
			assign[p] = 0
		}
		if p == len(assign) {
			break
		}
	}
	return best
}

// asks is what candidate cand (its number in the sharing out, both for a
// voter given to both) needs from the voters given to it: k votes, free
// of them in flight; a RequestVote delivered for each other; without
// repeated votes, each from a different voter; with them, RetryVotes
// timers for the RequestVotes beyond those in flight and (fresh) the one
// per voter the election starts with.
func (b *bounder) asks(elig []bool, pool, assign []int, cand, both, k, free int, dup, fresh bool, i int) int {
	r := max(0, k-free)
	if r == 0 {
		return 0
	}
	n := len(b.members)
	m, avail := 0, 0
	for p, j := range pool {
		if !elig[j] || assign[p] != cand && assign[p] != both {
			continue
		}
		m++
		avail += b.asked[i*n+j]
		if fresh {
			avail++
		}
	}
	if !dup {
		if m < r {
			return impossible
		}
		return r
	}
	if m == 0 {
		return impossible
	}
	retries := (max(0, r-avail) + m - 1) / m
	return r + retries
}

// commitCost is the least a leader-to-be n (by option o) spends on its
// first commit as the leader of that term, and whether a ClientCommand
// must reach it. Only an entry of its own term commits, and it gets
// those only from ClientCommands as the leader: when it has none (it is
// not a leader yet, or leads without one), a ClientCommand delivery.
// Its followers' matchIndex are then all below the new entry, so
// committing it takes, with the quorum rule, an AppendEntries delivered
// to each of majority-1 followers and their AppendEntriesResponses
// delivered to it; with the most common value (raft-42) and at least
// three members, one of each for a new leader, whose followers all start
// at 0 (as a leader already, ties between its followers' values may
// commit at once: only the ClientCommand). A deferred initialisation
// (raft-58a) keeps old matchIndex values: one delivery, no more. A
// leader with an entry of its term may commit on any delivery: one.
func commitCost(n *Node, o option) (int, bool) {
	cc := !o.now
	if o.now {
		cc = true
		for _, e := range n.log {
			if e.Term == n.term {
				cc = false
			}
		}
	}
	if !cc || n.bugs.lateInit {
		return 1, cc
	}
	if o.now && slices.Max(n.matchIndex) > n.lastIndex() {
		return 1, cc // never so (matchIndex comes from its own entries), but cheap to check
	}
	list := o.list
	if list == nil {
		list = n.members
	}
	maj := len(list)/2 + 1
	switch {
	case !n.bugs.modeCommit:
		return 1 + 2*(maj-1), true
	case !o.now && len(list) >= 3:
		return 3, true
	}
	return 1, true
}

package raft

import (
	"slices"
	"strconv"
	"strings"

	"github.com/demi-project/demi/record"
)

// symmetry declares Raft's members interchangeable (record.Symmetry): a
// member's code names no other member in particular, so relabelling a
// schedule relabels its run, as long as the run's initial configuration
// (which members start, and which members each Bootstrap lists) is the
// same after the relabelling. Options name no member.
func symmetry() *record.Symmetry {
	return &record.Symmetry{Holds: symmetric, Message: relabelMessage, Violation: relabelViolation}
}

// symmetric reports whether p maps the run's initial configuration onto
// itself: every member starts as often as the member it becomes, and
// every Bootstrap to a member lists the relabelled members of a Bootstrap
// to the member it becomes. It is strict: a Bootstrap list that is not in
// the members' order, repeats a member or names an actor that is not a
// member makes it false (a member iterates its list in order, so the
// relabelled run would send in another order than the relabelled
// schedule says).
func symmetric(o record.Options, events []record.Event, p record.Perm) bool {
	members := Members(o)
	if !p.Permutes(members) {
		return false
	}
	for _, e := range events {
		if b, ok := e.Msg.(Bootstrap); ok && e.Kind == record.Send && !inMemberOrder(b.Members, members) {
			return false
		}
	}
	before := configuration(events)
	after := configuration(symmetry().Relabel(events, p))
	return slices.Equal(before, after)
}

// configuration lists a run's initial configuration in a canonical order:
// one line per start and per Bootstrap, naming the member (and the
// members listed).
func configuration(events []record.Event) []string {
	var out []string
	for _, e := range events {
		switch {
		case e.Kind == record.Start:
			out = append(out, "start "+string(e.Actor))
		case e.Kind == record.Send:
			if b, ok := e.Msg.(Bootstrap); ok {
				names := make([]string, len(b.Members))
				for i, id := range b.Members {
					names[i] = string(id)
				}
				slices.Sort(names)
				out = append(out, "bootstrap "+string(e.To)+" "+strings.Join(names, ","))
			}
		}
	}
	slices.Sort(out)
	return out
}

// inMemberOrder reports whether ids are members, each once, in the run's
// member order.
func inMemberOrder(ids, members []record.ActorID) bool {
	last := -1
	for _, id := range ids {
		i := slices.Index(members, id)
		if i <= last {
			return false
		}
		last = i
	}
	return true
}

// relabelMessage relabels the members a message names: a Bootstrap's
// list (kept in the members' order), a RequestVote's candidate, an
// AppendEntries' leader. The other messages name no member.
func relabelMessage(m record.Message, p record.Perm) record.Message {
	switch m := m.(type) {
	case Bootstrap:
		ids := p.All(m.Members)
		slices.SortStableFunc(ids, func(a, b record.ActorID) int { return memberIndex(a) - memberIndex(b) })
		return Bootstrap{Members: ids}
	case RequestVote:
		m.Candidate = p.Of(m.Candidate)
		return m
	case AppendEntries:
		m.Leader = p.Of(m.Leader)
		m.Entries = slices.Clone(m.Entries)
		return m
	}
	return m
}

// memberIndex is the n of member raft-n (members sort by it), or a large
// number for another actor.
func memberIndex(id record.ActorID) int {
	n, err := strconv.Atoi(strings.TrimPrefix(string(id), "raft-"))
	if err != nil || !strings.HasPrefix(string(id), "raft-") {
		return MaxMembers + 1
	}
	return n
}

// relabelViolation relabels a violation fingerprint: an invariant's
// members (a pair in the members' order, as the invariant names it), or
// the members a panic's message names.
func relabelViolation(fp string, p record.Perm) (string, bool) {
	for _, inv := range []string{ElectionSafety, LogMatching, LeaderCompleteness, StateMachineSafety} {
		rest, ok := strings.CutPrefix(fp, inv+"(")
		if !ok {
			continue
		}
		list, ok := strings.CutSuffix(rest, ")")
		if !ok {
			return "", false
		}
		var ids []record.ActorID
		for _, s := range strings.Split(list, ",") {
			ids = append(ids, p.Of(record.ActorID(s)))
		}
		slices.SortStableFunc(ids, func(a, b record.ActorID) int { return memberIndex(a) - memberIndex(b) })
		return violation(inv, "", ids...).Fingerprint, true
	}
	if strings.HasPrefix(fp, "panic: ") {
		return p.Replace(fp), true
	}
	return "", false
}

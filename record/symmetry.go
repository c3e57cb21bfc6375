package record

import (
	"slices"
	"strings"

	"github.com/demi-project/demi/internal/perm"
)

// Perm is a relabelling of actors: a permutation of a run's members, each
// actor to the actor that takes its role. Actors it does not list keep
// their names.
type Perm map[ActorID]ActorID

// Of returns the actor that takes id's role.
func (p Perm) Of(id ActorID) ActorID {
	if to, ok := p[id]; ok {
		return to
	}
	return id
}

// All relabels a list of actors (a new slice; nil stays nil).
func (p Perm) All(ids []ActorID) []ActorID {
	if ids == nil {
		return nil
	}
	out := make([]ActorID, len(ids))
	for i, id := range ids {
		out[i] = p.Of(id)
	}
	return out
}

// Permutes reports whether p is a permutation of members: it maps members
// onto members, one to one (every actor it maps to is one it maps from,
// since the actors it does not list keep their names), and names no other
// actor.
func (p Perm) Permutes(members []ActorID) bool {
	seen := make(map[ActorID]bool, len(p))
	for from, to := range p {
		_, mapped := p[to]
		if !slices.Contains(members, from) || !mapped || seen[to] {
			return false
		}
		seen[to] = true
	}
	return true
}

// String renders the moves of p ("from→to"; an actor mapped to itself is
// left out) sorted as text, or "identity" when it moves none:
// "raft-2→raft-3 raft-3→raft-2".
func (p Perm) String() string {
	var keys []string
	for from, to := range p {
		if from != to {
			keys = append(keys, string(from)+"→"+string(to))
		}
	}
	slices.Sort(keys)
	if keys == nil {
		return "identity"
	}
	return strings.Join(keys, " ")
}

// Symmetry is an optional capability of a System (System.Symmetry): which
// actors of a run are interchangeable, and how to relabel what names them.
// When a relabelling is a symmetry of a run, the relabelled schedule runs
// the same execution with the roles of the actors exchanged, and breaks
// the same invariants with the relabelled actors: minimization's gather
// pass tries its plans relabelled (package minimize, gather.go), and its
// checks take a run that breaks an image of the target (Images),
// relabelled back. A wrong
// symmetry costs only wasted checks (every trace
// demi keeps is replayed and must reproduce its exact target
// fingerprint), but a system should declare one only when it holds.
type Symmetry struct {
	// Holds reports whether p maps the initial configuration of the run
	// of events under options o onto itself (the actors started, the
	// external messages that configure them, the options that name
	// actors), so that the actors p exchanges play interchangeable roles.
	// p is a permutation of the run's members (Perm.Permutes). It must be
	// strict: false whenever in doubt.
	Holds func(o Options, events []Event, p Perm) bool
	// Message returns m, a message of the system, with every actor it
	// names relabelled by p. It must not change m.
	Message func(m Message, p Perm) Message
	// Violation returns the fingerprint of violation fp as the relabelled
	// run reports it (the actors relabelled, in the order the invariant
	// names them), or false when fp names something it cannot relabel.
	Violation func(fp string, p Perm) (string, bool)
}

// Relabel returns events with every actor relabelled by p: senders,
// receivers and messages of deliveries and external sends, the actors of
// starts, kills and restarts, the sides of partitions and heals. Message
// IDs and causal links stay as they are (a run of the relabelled schedule
// assigns its own), and so do timer keys and the condition names of
// wait-until markers: a system whose conditions name actors must make
// Holds false for the relabellings that move them.
func (s *Symmetry) Relabel(events []Event, p Perm) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		e.From, e.To, e.Actor = p.Of(e.From), p.Of(e.To), p.Of(e.Actor)
		e.A, e.B = p.All(e.A), p.All(e.B)
		if e.Msg != nil {
			e.Msg = s.Message(e.Msg, p)
		}
		out[i] = e
	}
	return out
}

// Images returns the other fingerprints violation fp takes under the
// symmetries of the run of events (Holds), each with the relabelling that
// maps it back onto fp: a run that breaks an image, relabelled, is a run
// that breaks fp, up to an exact replay. None for a nil Symmetry or more
// than maxMembers members (n! permutations are tried).
func (s *Symmetry) Images(o Options, members []ActorID, events []Event, fp string, maxMembers int) map[string]Perm {
	if s == nil || len(members) > maxMembers {
		return nil
	}
	out := map[string]Perm{}
	for _, order := range perm.Orders(len(members))[1:] { // the identity is first
		p, back := Perm{}, Perm{}
		for i, k := range order {
			p[members[i]], back[members[k]] = members[k], members[i]
		}
		img, ok := s.Violation(fp, p)
		if _, dup := out[img]; !ok || dup || img == fp || !s.Holds(o, events, p) || !s.Holds(o, events, back) {
			continue
		}
		if got, ok := s.Violation(img, back); ok && got == fp {
			out[img] = back
		}
	}
	return out
}

// NamedActors returns the members a text (a violation fingerprint) names,
// in the order it names them, each once: a member's name counts where it
// stands as a whole word (not inside a longer name, so "raft-1" is not
// found in "raft-12").
func NamedActors(text string, members []ActorID) []ActorID {
	type at struct {
		pos int
		id  ActorID
	}
	var found []at
	for _, id := range members {
		name := string(id)
		if name == "" {
			continue
		}
		for off := 0; ; {
			i := strings.Index(text[off:], name)
			if i < 0 {
				break
			}
			i += off
			if wordAt(text, i, i+len(name)) {
				found = append(found, at{i, id})
				break
			}
			off = i + 1
		}
	}
	slices.SortFunc(found, func(x, y at) int { return x.pos - y.pos })
	out := make([]ActorID, len(found))
	for i, f := range found {
		out[i] = f.id
	}
	return out
}

// Replace returns text with the name of every actor p moves, where it
// stands as a whole word, replaced by its image: how a system relabels a
// fingerprint that names actors in free text (a panic's message).
func (p Perm) Replace(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		var hit ActorID
		for id := range p {
			n := len(id)
			if n > len(hit) && strings.HasPrefix(text[i:], string(id)) && wordAt(text, i, i+n) {
				hit = id
			}
		}
		if hit == "" {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString(string(p.Of(hit)))
		i += len(hit)
	}
	return b.String()
}

// wordAt reports whether text[i:j] stands as a whole word: no letter,
// digit, '-' or '_' just before or after it.
func wordAt(text string, i, j int) bool {
	inWord := func(c byte) bool {
		return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return (i == 0 || !inWord(text[i-1])) && (j >= len(text) || !inWord(text[j]))
}

package kvapp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/demi-project/demi/record"
)

// Linearizability is the invariant over the clients' reads (history.go).
//
// Each key of the store is a register, and linearizability is local: a
// history is linearizable if each key's history is. Raft orders the writes:
// the log (the entries members applied, ghost state) is the order of every
// key's writes, so a check need not search for one. A completed read R of
// key k that returned value v linearizes if some write w of v to k (or the
// initial state, when R found no value and the first write was later)
// has a place in the write order that R can read from:
//
//   - w and every write of k before it in the log were invoked before R
//     returned (a read cannot see a write that did not exist yet, nor
//     anything after it);
//   - no write of k after w in the log had completed before R was
//     invoked (a read cannot see a value already overwritten);
//   - a read that completed before R was invoked read from no later place
//     than R (reads do not go back in time).
//
// Values are not unique (two clients may write the same value), so a write
// is identified by key and value, and every write of that key and value
// counts: the check never reports a history that has a linearization, and
// may miss one that collisions hide. Its cost is a pass over the applied
// log and the completed operations, and nothing at all in runs without
// reads.
const Linearizability = "Linearizability"

// kvWrite is a write of one key at a log index (index 0: the initial
// state, no value).
type kvWrite struct {
	index  uint64
	value  string
	absent bool
}

// servedRead is a completed read and the member that answered it.
type servedRead struct {
	op     Op
	member record.ActorID
}

// CheckReads checks the members' client histories hs against the entries'
// data they applied, logs (both by member, in the order of ms): nil, or
// the violation Linearizability(MEMBER) of the member that answered a read
// with no place in the write order.
func CheckReads(ms []record.ActorID, hs [][]Op, logs [][]string) *record.Violation {
	var reads []servedRead
	for i, id := range ms {
		for _, op := range hs[i] {
			if op.Read {
				reads = append(reads, servedRead{op, id})
			}
		}
	}
	if len(reads) == 0 {
		return nil
	}
	writes := writeOrder(logs, reads)
	// For each key: bound[j] is the latest of the first invocations of a
	// Put of the value of each of the key's writes 1 … j in log order (a
	// read returning before it cannot read from write j or later), and
	// done lists the completed Puts.
	type keyInfo struct {
		bound []int
		done  []Op
	}
	info := make(map[string]*keyInfo, len(writes))
	for key, ws := range writes {
		ki := &keyInfo{bound: make([]int, len(ws))}
		for j, w := range ws[1:] {
			first := math.MaxInt
			for _, h := range hs {
				for _, p := range h {
					if !p.Read && p.Key == key && p.Absent == w.absent && (w.absent || p.Value == w.value) {
						first = min(first, p.Inv)
					}
				}
			}
			ki.bound[j+1] = max(ki.bound[j], first)
		}
		for _, h := range hs {
			for _, p := range h {
				if !p.Read && p.Key == key && p.Resp > 0 {
					ki.done = append(ki.done, p)
				}
			}
		}
		info[key] = ki
	}
	type window struct{ lo, hi uint64 } // the places a read can read from
	places := make([]window, len(reads))
	for i, r := range reads {
		ws, ki := writes[r.op.Key], info[r.op.Key]
		// The first write (in log order) not preceded, with every write
		// before it, by an invocation before r returned: r reads from an
		// earlier place.
		hi := uint64(math.MaxUint64)
		for j := 1; j < len(ws); j++ {
			if ki.bound[j] >= r.op.Resp {
				hi = ws[j].index
				break
			}
		}
		// The last write completed before r was invoked: r reads from
		// there or later.
		lo := uint64(0)
		for _, p := range ki.done {
			if p.Resp < r.op.Inv {
				lo = max(lo, p.Index)
			}
		}
		first, last, ok := uint64(0), uint64(0), false
		for _, w := range ws {
			if w.index >= lo && w.index < hi && w.absent == r.op.Absent && (w.absent || w.value == r.op.Value) {
				if !ok {
					first = w.index
				}
				last, ok = w.index, true
			}
		}
		if !ok {
			why := "the initial state"
			if lo > 0 {
				why = fmt.Sprintf("the write at log index %d, completed before the read began", lo)
			}
			if hi < math.MaxUint64 {
				why += fmt.Sprintf(", or a later one before index %d", hi)
			} else {
				why += ", or a later one"
			}
			return &record.Violation{
				Fingerprint: fmt.Sprintf("%s(%s)", Linearizability, r.member),
				Detail: fmt.Sprintf("%s answered a read of %s (events %d-%d) with %s; a linearizable read returns the value of %s",
					r.member, r.op.Key, r.op.Inv, r.op.Resp, describeRead(r.op), why),
			}
		}
		places[i] = window{first, last}
	}
	for i, a := range reads {
		for j, b := range reads {
			if a.op.Key == b.op.Key && a.op.Resp < b.op.Inv && places[i].lo > places[j].hi {
				return &record.Violation{
					Fingerprint: fmt.Sprintf("%s(%s)", Linearizability, b.member),
					Detail: fmt.Sprintf("%s answered a read of %s (events %d-%d) with %s after %s had answered one (events %d-%d) with a later write's %s",
						b.member, b.op.Key, b.op.Inv, b.op.Resp, describeRead(b.op), a.member, a.op.Inv, a.op.Resp, describeRead(a.op)),
				}
			}
		}
	}
	return nil
}

func describeRead(op Op) string {
	if op.Absent {
		return "no value"
	}
	return strconv.Quote(op.Value)
}

// writeOrder returns the writes in log order of every key reads read,
// from what the members applied (ghost state; StateMachineSafety checks
// that they agree), each list starting with the initial state at index 0.
func writeOrder(logs [][]string, reads []servedRead) map[string][]kvWrite {
	out := map[string][]kvWrite{}
	for _, r := range reads {
		out[r.op.Key] = []kvWrite{{absent: true}}
	}
	n := 0
	for _, l := range logs {
		n = max(n, len(l))
	}
	for i := range n {
		data := ""
		for _, l := range logs {
			if i < len(l) && l[i] != "" {
				data = l[i]
				break
			}
		}
		verb, rest, ok := strings.Cut(data, " ")
		if !ok {
			continue
		}
		key, value, set := strings.Cut(rest, " ")
		ws, read := out[key]
		switch {
		case !read:
		case verb == "set" && set:
			out[key] = append(ws, kvWrite{index: uint64(i), value: value})
		case verb == "del" && !set:
			out[key] = append(ws, kvWrite{index: uint64(i), absent: true})
		}
	}
	return out
}

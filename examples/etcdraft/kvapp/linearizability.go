package kvapp

import (
	"fmt"
	"math"
	"strconv"

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
// log and the operations, which links the writes and Puts of each key
// read, then, for each read, a pass over its key's writes and Puts, and
// for each of those writes one over the Puts (and a comparison of the
// reads in pairs); it allocates nothing for most histories, and costs
// nothing at all in runs without reads.
const Linearizability = "Linearizability"

// readKey is a key some read read, with where its writes and Puts are:
// the first of each in CheckReads' writes (and the last, to append to)
// and puts, each linking to the key's next one; -1 for none. A key's
// writes are linked in log order, its Puts in no particular order.
type readKey struct {
	key                        string
	firstWrite, lastWrite, put int
}

// kvWrite is a write of a key read at a log index. bound is the latest of
// the first invocations of a Put of the value of each of the key's writes
// up to this one in log order: a read returning before it cannot read from
// this write or a later one.
type kvWrite struct {
	index  uint64
	value  string
	absent bool
	bound  int
	next   int // the key's next write, -1: none
}

// kvPut is a Put of a key read.
type kvPut struct {
	op   *Op
	next int // the key's next Put, -1: none
}

// servedRead is a completed read of keys[key], the member that answered
// it, and the places in the key's write order it can read from: the log
// indices of the first and the last write it linearizes on (0: the
// initial state).
type servedRead struct {
	op     *Op
	member record.ActorID
	key    int
	lo, hi uint64
}

// The sizes of the buffers CheckReads starts with, on the stack: enough
// for most histories of a minimization's runs, which then allocate nothing
// unless a read is not linearizable (longer ones grow them on the heap).
const (
	stackReads  = 16
	stackKeys   = 8
	stackWrites = 64
	stackPuts   = 64
)

// CheckReads checks the members' client histories hs against the entries'
// data they applied, logs (both by member, in the order of ms): nil, or
// the violation Linearizability(MEMBER) of the member that answered a read
// with no place in the write order.
func CheckReads(ms []record.ActorID, hs [][]Op, logs [][]string) *record.Violation {
	var readBuf [stackReads]servedRead
	var keyBuf [stackKeys]readKey
	reads, keys := readBuf[:0], keyBuf[:0]
	for i, id := range ms {
		for j := range hs[i] {
			if op := &hs[i][j]; op.Read {
				k := keyIndex(keys, op.Key)
				if k < 0 {
					k, keys = len(keys), append(keys, readKey{op.Key, -1, -1, -1})
				}
				reads = append(reads, servedRead{op: op, member: id, key: k})
			}
		}
	}
	if len(reads) == 0 {
		return nil
	}
	var writeBuf [stackWrites]kvWrite
	writes := writeOrder(logs, keys, writeBuf[:0])
	var putBuf [stackPuts]kvPut
	puts := putBuf[:0]
	for _, h := range hs {
		for j := range h {
			if p := &h[j]; !p.Read {
				if k := keyIndex(keys, p.Key); k >= 0 {
					puts = append(puts, kvPut{p, keys[k].put})
					keys[k].put = len(puts) - 1
				}
			}
		}
	}
	for _, k := range keys {
		bound := 0
		for i := k.firstWrite; i >= 0; i = writes[i].next {
			w := &writes[i]
			first := math.MaxInt
			for j := k.put; j >= 0; j = puts[j].next {
				if p := puts[j].op; p.Absent == w.absent && (w.absent || p.Value == w.value) {
					first = min(first, p.Inv)
				}
			}
			bound = max(bound, first)
			w.bound = bound
		}
	}
	for i := range reads {
		r := &reads[i]
		k := keys[r.key]
		// The first write (in log order) not preceded, with every write
		// before it, by an invocation before r returned: r reads from an
		// earlier place.
		hi := uint64(math.MaxUint64)
		for j := k.firstWrite; j >= 0; j = writes[j].next {
			if writes[j].bound >= r.op.Resp {
				hi = writes[j].index
				break
			}
		}
		// The last write completed before r was invoked: r reads from
		// there or later.
		lo := uint64(0)
		for j := k.put; j >= 0; j = puts[j].next {
			if p := puts[j].op; p.Resp > 0 && p.Resp < r.op.Inv {
				lo = max(lo, p.Index)
			}
		}
		// The initial state (index 0), then the key's writes.
		first, last, ok := uint64(0), uint64(0), lo == 0 && hi > 0 && r.op.Absent
		for j := k.firstWrite; j >= 0; j = writes[j].next {
			if w := &writes[j]; w.index >= lo && w.index < hi && w.absent == r.op.Absent && (w.absent || w.value == r.op.Value) {
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
					r.member, r.op.Key, r.op.Inv, r.op.Resp, describeRead(*r.op), why),
			}
		}
		r.lo, r.hi = first, last
	}
	for _, a := range reads {
		for _, b := range reads {
			if a.op.Resp < b.op.Inv && a.lo > b.hi && a.key == b.key {
				return &record.Violation{
					Fingerprint: fmt.Sprintf("%s(%s)", Linearizability, b.member),
					Detail: fmt.Sprintf("%s answered a read of %s (events %d-%d) with %s after %s had answered one (events %d-%d) with a later write's %s",
						b.member, b.op.Key, b.op.Inv, b.op.Resp, describeRead(*b.op), a.member, a.op.Inv, a.op.Resp, describeRead(*a.op)),
				}
			}
		}
	}
	return nil
}

// keyIndex returns the position of key in keys, -1 if it is not there (a
// search, as there are few keys).
func keyIndex(keys []readKey, key string) int {
	for i := range keys {
		if keys[i].key == key {
			return i
		}
	}
	return -1
}

func describeRead(op Op) string {
	if op.Absent {
		return "no value"
	}
	return strconv.Quote(op.Value)
}

// writeOrder appends to ws, and returns, the writes of keys from what the
// members applied (ghost state; StateMachineSafety checks that they
// agree), linking each key's writes in log order, their bounds not yet
// set.
func writeOrder(logs [][]string, keys []readKey, ws []kvWrite) []kvWrite {
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
		key, value, del, ok := command(data)
		if !ok {
			continue
		}
		k := keyIndex(keys, key)
		if k < 0 {
			continue
		}
		ws = append(ws, kvWrite{index: uint64(i), value: value, absent: del, next: -1})
		if last := keys[k].lastWrite; last >= 0 {
			ws[last].next = len(ws) - 1
		} else {
			keys[k].firstWrite = len(ws) - 1
		}
		keys[k].lastWrite = len(ws) - 1
	}
	return ws
}

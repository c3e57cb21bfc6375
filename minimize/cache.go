package minimize

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/internal/eventkey"
	"github.com/demi-project/demi/record"
)

// checked remembers candidates whose check found nothing, with the schedules it ran: a check is a
// deterministic function of its plan and settings, and its schedules count as if it ran again, so
// the cache changes no result. Two generations of checkedCap keys bound its memory.
type checked struct {
	mu       sync.Mutex
	cur, old map[checkKey]int32 // key → schedules the check ran
	hits     atomic.Int64
}

// checkedCap is the number of keys a generation of the cache holds (about 3 MB).
const checkedCap = 1 << 15

// checkKey is the digest of a check's settings and plan.
type checkKey [sha256.Size]byte

// checkSettings are the settings a check's outcome depends on besides its plan.
type checkSettings struct {
	mode     dpor.Mode
	maxSched int
	broad    bool
}

func newChecked() *checked { return &checked{cur: map[checkKey]int32{}, old: map[checkKey]int32{}} }

// lookup returns the schedules a remembered check of key ran.
func (c *checked) lookup(key checkKey) (int, bool) {
	c.mu.Lock()
	n, ok := c.cur[key]
	if !ok {
		n, ok = c.old[key]
	}
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
	}
	return int(n), ok
}

// remember notes that the check of key found nothing in schedules.
func (c *checked) remember(key checkKey, schedules int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cur) >= checkedCap {
		c.old, c.cur = c.cur, make(map[checkKey]int32, checkedCap/4)
	}
	c.cur[key] = int32(schedules)
}

// keyOf digests what a check of plan with settings s reads; ok is false if a message cannot be encoded.
func keyOf(s checkSettings, plan dpor.Plan) (key checkKey, ok bool) {
	h := sha256.New()
	b := make([]byte, 0, 2*keyChunk)
	b = binary.AppendUvarint(b, uint64(s.mode))
	b = binary.AppendUvarint(b, uint64(s.maxSched))
	b = binary.AppendUvarint(b, boolBit(s.broad))
	b = binary.AppendUvarint(b, uint64(len(plan)))
	for i := range plan {
		st := &plan[i]
		var ok bool
		if b, ok = eventkey.Append(b, &st.Event); !ok {
			return key, false
		}
		b = binary.LittleEndian.AppendUint64(b, st.FP.Type)
		b = binary.LittleEndian.AppendUint64(b, st.FP.Full)
		b = binary.AppendUvarint(b, boolBit(st.Wildcard)|boolBit(st.Reroute)<<1|boolBit(st.Flush)<<2)
		if len(b) >= keyChunk {
			h.Write(b)
			b = b[:0]
		}
	}
	h.Write(b)
	h.Sum(key[:0])
	return key, true
}

// keyChunk is how many bytes keyOf encodes before it hashes them.
const keyChunk = 4096

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// check checks plan on c with settings s (cachedCheck), counts its
// schedules (ran), and returns the trace found, or nil, and its steps.
func (m *minimizer) check(ctx context.Context, c *dpor.Checker, s checkSettings, plan dpor.Plan) (*record.Trace, int64, error) {
	r, err := m.cachedCheck(ctx, c, s, plan)
	m.ran(c, r.Schedules)
	return r.Trace, int64(r.Schedules) * int64(len(plan)), err
}

// cachedCheck checks plan on c with settings s, or answers from the cache if the same check found nothing.
func (m *minimizer) cachedCheck(ctx context.Context, c *dpor.Checker, s checkSettings, plan dpor.Plan) (dpor.Result, error) {
	c.SetMode(s.mode)
	c.SetMaxSchedules(s.maxSched)
	c.SetBroad(s.broad)
	key, ok := keyOf(s, plan)
	if ok = ok && m.checked != nil; ok {
		if n, hit := m.checked.lookup(key); hit {
			return dpor.Result{Schedules: n}, nil
		}
	}
	r, err := c.Check(ctx, plan)
	if err == nil && r.Trace != nil && r.Trace.Header.Violation.Fingerprint != m.target {
		r, err = m.relabelled(ctx, c, r)
	}
	if ok && err == nil && r.Trace == nil {
		m.checked.remember(key, r.Schedules)
	}
	return r, err
}

// relabelled returns r, whose trace breaks an image of the target under a symmetry (shared.images), with that
// run relabelled onto the target as one schedule of c runs it (no trace if that does not break it).
func (m *minimizer) relabelled(ctx context.Context, c *dpor.Checker, r dpor.Result) (dpor.Result, error) {
	c.SetMode(dpor.STS)
	c.SetMaxSchedules(1)
	v, err := c.Check(ctx, dpor.FromEvents(c.Fingerprinter(), m.sys.Symmetry.Relabel(r.Trace.Events, m.images[r.Trace.Header.Violation.Fingerprint])))
	if v.Trace != nil && v.Trace.Header.Violation.Fingerprint != m.target {
		v.Trace = nil
	}
	v.Schedules += r.Schedules
	return v, err
}

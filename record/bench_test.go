package record_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/demi-project/demi/record"
)

// The benchmark workload: a small-message relay. Actors r0..r{n-1} pass Hop
// messages around; each delivery updates a little state and sends one Hop
// on, so every delivery costs the same and the network always holds the
// same number of messages in flight (inflight of them).
//
// The handler is written against a one-method interface so that the very
// same code can run under the runtime (with *record.Context) and in a bare
// loop (with a trivial queue): the bare loop is the physical limit, what
// the handlers cost with no runtime around them.

// Hop is the relay's message.
type Hop struct{ Seq, TTL int }

type sender interface {
	Send(to record.ActorID, msg record.Message)
}

type relay struct {
	next    []record.ActorID
	sum, n  int
	lastSeq int
}

func (r *relay) handle(out sender, m Hop) {
	r.sum += m.Seq ^ m.TTL
	r.n++
	r.lastSeq = m.Seq
	if m.TTL > 0 {
		out.Send(r.next[(m.Seq+m.TTL)%len(r.next)], Hop{Seq: m.Seq, TTL: m.TTL - 1})
	}
}

// Receive is the actor's handler under the runtime.
func (r *relay) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	r.handle(ctx, msg.(Hop))
}

const (
	relayActors   = 4
	relayInflight = 8
)

func relayIDs() []record.ActorID {
	ids := make([]record.ActorID, relayActors)
	for i := range ids {
		ids[i] = record.ActorID(rune('p' + i))
	}
	return ids
}

func relaySystem(ttl int) *record.System {
	ids := relayIDs()
	return &record.System{
		Name:     "relay",
		Members:  func(record.Options) []record.ActorID { return ids },
		New:      func(record.ActorID, record.Options) record.Actor { return &relay{next: ids} },
		Messages: []record.Message{Hop{}},
		Invariant: func(v record.View) *record.Violation {
			return nil
		},
		Setup: func(record.Options) []record.Event {
			var evs []record.Event
			for _, id := range ids {
				evs = append(evs, record.StartEvent(id))
			}
			for i := 0; i < relayInflight; i++ {
				evs = append(evs, record.SendEvent(ids[i%len(ids)], Hop{Seq: i, TTL: ttl}))
			}
			return evs
		},
	}
}

// bareQueue is the trivial context substitute: a FIFO of pending messages.
type bareQueue struct {
	index map[record.ActorID]int
	to    []int
	msgs  []record.Message
	head  int
}

func (q *bareQueue) Send(to record.ActorID, msg record.Message) {
	q.to = append(q.to, q.index[to])
	q.msgs = append(q.msgs, msg)
}

// bareRun delivers n messages of the relay workload by calling the handlers
// directly, oldest message first.
func bareRun(n int) int {
	ids := relayIDs()
	q := &bareQueue{index: map[record.ActorID]int{}}
	actors := make([]*relay, len(ids))
	for i, id := range ids {
		q.index[id] = i
		actors[i] = &relay{next: ids}
	}
	for i := 0; i < relayInflight; i++ {
		q.Send(ids[i%len(ids)], Hop{Seq: i, TTL: n})
	}
	done := 0
	for ; done < n && q.head < len(q.to); done++ {
		to, msg := q.to[q.head], q.msgs[q.head]
		q.msgs[q.head] = nil
		q.head++
		if q.head > 4096 { // keep the queue small, as a real one would
			k := copy(q.to, q.to[q.head:])
			copy(q.msgs, q.msgs[q.head:])
			q.to, q.msgs, q.head = q.to[:k], q.msgs[:k], 0
		}
		actors[to].handle(q, msg.(Hop))
	}
	return done
}

const benchDeliveries = 20000

func fuzzRelay(b *testing.B, steps int) *record.Trace {
	tr, err := record.Fuzz(context.Background(), relaySystem(steps), nil,
		record.FuzzConfig{Seed: 1, MaxSteps: steps, MaxExternals: -1})
	if err != nil {
		b.Fatal(err)
	}
	if tr.Header.Deliveries != steps {
		b.Fatalf("%d deliveries, want %d", tr.Header.Deliveries, steps)
	}
	return tr
}

// BenchmarkBareHandlers is the physical limit: the relay's handlers called
// in a loop with a trivial queue, no runtime.
func BenchmarkBareHandlers(b *testing.B) {
	for b.Loop() {
		if bareRun(benchDeliveries) != benchDeliveries {
			b.Fatal("short run")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchDeliveries), "ns/delivery")
}

// BenchmarkFuzz records: a fuzz run of the relay workload (random choice
// among enabled messages, invariant checked after every delivery, every
// event recorded).
func BenchmarkFuzz(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		fuzzRelay(b, benchDeliveries)
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*benchDeliveries)
	b.ReportMetric(ns, "ns/delivery")
	b.ReportMetric(1e9/ns, "deliveries/s")
}

// BenchmarkSearch is a fuzz campaign, as `demi fuzz` runs it: run after
// run of the relay workload (no violation, so every run goes to its step
// limit); a discarded run's memory is reused by the next.
func BenchmarkSearch(b *testing.B) {
	const runs = 5
	sys := relaySystem(benchDeliveries)
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: benchDeliveries, MaxExternals: -1}, Runs: runs}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := record.Search(context.Background(), sys, nil, cfg); err != nil {
			b.Fatal(err)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*runs*benchDeliveries)
	b.ReportMetric(ns, "ns/delivery")
	b.ReportMetric(1e9/ns, "deliveries/s")
}

// BenchmarkSimDeliver is the runtime without the fuzzer, as a caller
// driving a Sim by hand uses it: Enabled, then Deliver the oldest enabled
// message; with and without Sim.Reserve.
func BenchmarkSimDeliver(b *testing.B) {
	b.Run("grow", func(b *testing.B) { benchSimDeliver(b, false) })
	b.Run("reserved", func(b *testing.B) { benchSimDeliver(b, true) })
}

func benchSimDeliver(b *testing.B, reserve bool) {
	sys := relaySystem(benchDeliveries)
	buf := make([]record.Pending, 0, 64)
	for b.Loop() {
		s, err := record.NewSim(sys, nil, 1)
		if err != nil {
			b.Fatal(err)
		}
		if reserve {
			s.Reserve(benchDeliveries + 64)
		}
		for _, e := range sys.Setup(nil) {
			if err := s.Apply(e); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; i < benchDeliveries; i++ {
			buf = s.Enabled(buf[:0])
			if err := s.Deliver(buf[0].ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchDeliveries), "ns/delivery")
}

// BenchmarkOverhead measures, in the same benchmark and alternating so
// that a noisy machine weighs on all alike, the cost per delivery of
//
//   - bare: the relay's handlers called directly in a loop (the limit);
//   - search: a fuzz campaign (record.Search, runs reuse memory);
//   - fuzz: single record.Fuzz calls, each recording into fresh memory;
//
// and reports search/bare and fuzz/bare: the figures docs/performance.md
// quotes. Each phase starts from a collected heap (runtime.GC, untimed), so
// that the garbage one phase leaves does not land on the next one's
// account: the bare loop allocates too, and how often the collector runs
// under it depends on what was there before.
func BenchmarkOverhead(b *testing.B) {
	const runs = 4
	sys := relaySystem(benchDeliveries)
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: benchDeliveries, MaxExternals: -1}, Runs: runs}
	var bare, search, single time.Duration
	for b.Loop() {
		runtime.GC()
		t0 := time.Now()
		for range runs {
			bareRun(benchDeliveries)
		}
		bare += time.Since(t0)
		runtime.GC()
		t1 := time.Now()
		if _, _, err := record.Search(context.Background(), sys, nil, cfg); err != nil {
			b.Fatal(err)
		}
		search += time.Since(t1)
		runtime.GC()
		t2 := time.Now()
		for range runs {
			fuzzRelay(b, benchDeliveries)
		}
		single += time.Since(t2)
	}
	n := float64(b.N * runs * benchDeliveries)
	b.ReportMetric(float64(bare.Nanoseconds())/n, "bare-ns/delivery")
	b.ReportMetric(float64(search.Nanoseconds())/n, "search-ns/delivery")
	b.ReportMetric(float64(single.Nanoseconds())/n, "fuzz-ns/delivery")
	b.ReportMetric(float64(search)/float64(bare), "search/bare")
	b.ReportMetric(float64(single)/float64(bare), "fuzz/bare")
}

// BenchmarkEncode and BenchmarkDecode measure the trace file format.
func BenchmarkEncode(b *testing.B) {
	tr := fuzzRelay(b, benchDeliveries)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := tr.Encode(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tr.Events)), "ns/event")
}

func BenchmarkDecode(b *testing.B) {
	tr := fuzzRelay(b, benchDeliveries)
	var buf bytes.Buffer
	if err := tr.Encode(&buf); err != nil {
		b.Fatal(err)
	}
	cat := record.NewCatalog(relaySystem(benchDeliveries))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := record.Decode(bytes.NewReader(buf.Bytes()), cat); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tr.Events)), "ns/event")
}

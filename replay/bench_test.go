package replay_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The relay workload of record's benchmarks: actors pass small Hop
// messages around, each delivery sends one more.

type Hop struct{ Seq, TTL int }

type relay struct {
	next   []record.ActorID
	sum, n int
}

func (r *relay) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	m := msg.(Hop)
	r.sum += m.Seq ^ m.TTL
	r.n++
	if m.TTL > 0 {
		ctx.Send(r.next[(m.Seq+m.TTL)%len(r.next)], Hop{Seq: m.Seq, TTL: m.TTL - 1})
	}
}

func relaySystem(ttl int) *record.System {
	ids := []record.ActorID{"p", "q", "r", "s"}
	return &record.System{
		Name:     "relay",
		Members:  func(record.Options) []record.ActorID { return ids },
		New:      func(record.ActorID, record.Options) record.Actor { return &relay{next: ids} },
		Messages: []record.Message{Hop{}},
		Setup: func(record.Options) []record.Event {
			var evs []record.Event
			for _, id := range ids {
				evs = append(evs, record.StartEvent(id))
			}
			for i := 0; i < 8; i++ {
				evs = append(evs, record.SendEvent(ids[i%len(ids)], Hop{Seq: i, TTL: ttl}))
			}
			return evs
		},
	}
}

const benchDeliveries = 20000

// BenchmarkReplay replays a recorded fuzz run of the relay workload (read
// back from its encoding, as from a file): every delivery is checked
// against the trace and the invariant is checked after every event.
func BenchmarkReplay(b *testing.B) {
	sys := relaySystem(benchDeliveries)
	tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1, MaxSteps: benchDeliveries, MaxExternals: -1})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.Encode(&buf); err != nil {
		b.Fatal(err)
	}
	tr, _, err = record.Decode(&buf, record.NewCatalog(sys))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := replay.Run(context.Background(), sys, tr)
		if err != nil {
			b.Fatal(err)
		}
		if res.Divergence != nil || res.Events != len(tr.Events) {
			b.Fatalf("replay stopped at %d: %v", res.Events, res.Divergence)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*len(tr.Events))
	b.ReportMetric(ns, "ns/event")
	b.ReportMetric(1e9/ns, "events/s")
}

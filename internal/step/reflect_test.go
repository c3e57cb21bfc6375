package step

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// Credit is the one message of the ledger test system.
type Credit struct{ N int }

// account has no Snapshot method, so its state is shown through
// reflection; its history is long enough to be folded.
type account struct {
	id      record.ActorID
	balance int
	history []int
	byPeer  map[record.ActorID]int
}

func (a *account) Start(ctx *record.Context) {
	a.byPeer = map[record.ActorID]int{}
	for i := range 200 {
		a.history = append(a.history, i)
	}
}

func (a *account) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	c := msg.(Credit)
	a.balance += c.N
	a.history = append(a.history, c.N)
	a.byPeer[from] += c.N
	if a.id == "a1" && c.N > 1 {
		ctx.Send("a2", Credit{N: c.N - 1})
	}
}

// ledger: two accounts; a1 passes part of every credit on to a2; the
// invariant breaks when a2's balance reaches 5.
func ledger() *record.System {
	members := func(record.Options) []record.ActorID { return []record.ActorID{"a1", "a2"} }
	return &record.System{
		Name:     "ledger",
		Members:  members,
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &account{id: id} },
		Messages: []record.Message{Credit{}},
		Invariant: func(v record.View) *record.Violation {
			if a, ok := v.Actor("a2").(*account); ok && a.balance >= 5 {
				return &record.Violation{Fingerprint: "rich(a2)", Detail: fmt.Sprintf("a2 has %d", a.balance)}
			}
			return nil
		},
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("a1"), record.StartEvent("a2"),
				record.SendEvent("a1", Credit{N: 3}), record.SendEvent("a1", Credit{N: 4})}
		},
	}
}

func TestScriptReflectedState(t *testing.T) {
	sys := ledger()
	tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1, MaxExternals: 0})
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	w := walkTrace(t, sys, "ledger.trace", tr)
	var out bytes.Buffer
	require.NoError(t, Script(context.Background(), w, strings.NewReader("violation\nstate a2\n"), &out))
	golden(t, "ledger.golden", out.String())
}

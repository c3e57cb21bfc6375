package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// ballot is a system that is not in the repository: three members elect
// leaders by ballot. An election timer makes a member a candidate for the
// next ballot above any it has seen; a member grants a ballot above its
// promise (with the bug "grant-equal", also one equal to it, so two
// candidates of the same ballot can both win). Invariant: one leader per
// ballot.
type (
	ask   struct{ Ballot int }
	yes   struct{ Ballot int }
	elect struct{}
)

func (m ask) Round() (int, string) { return m.Ballot, "ask" }
func (m yes) Round() (int, string) { return m.Ballot, "yes" }

type ballotNode struct {
	Promised, Ballot, Votes int
	Leader                  bool
	bug                     bool
}

func (n *ballotNode) Start(ctx *record.Context) { ctx.SetTimer("elect", elect{}) }

func (n *ballotNode) Snapshot() any { return *n }

func (n *ballotNode) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case elect:
		n.Ballot, n.Votes, n.Leader = n.Promised+1, 1, false
		n.Promised = n.Ballot
		for _, id := range []record.ActorID{"b1", "b2", "b3"} {
			if id != ctx.Self() {
				ctx.Send(id, ask{n.Ballot})
			}
		}
		ctx.SetTimer("elect", elect{})
	case ask:
		if m.Ballot > n.Promised || n.bug && m.Ballot == n.Promised {
			n.Promised = m.Ballot
			ctx.Send(from, yes(m))
		}
	case yes:
		if m.Ballot == n.Ballot && !n.Leader {
			if n.Votes++; n.Votes >= 2 {
				n.Leader = true
			}
		}
	}
}

func ballotSystem() *record.System {
	members := []record.ActorID{"b1", "b2", "b3"}
	return &record.System{
		Name:    "ballot",
		Options: []record.OptionSpec{{Name: "grant-equal", Default: "false", Bug: true}},
		Members: func(record.Options) []record.ActorID { return members },
		New: func(_ record.ActorID, o record.Options) record.Actor {
			return &ballotNode{bug: o.Bool("grant-equal")}
		},
		Messages: []record.Message{ask{}, yes{}, elect{}},
		Setup: func(record.Options) []record.Event {
			var evs []record.Event
			for _, id := range members {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Invariant: func(v record.View) *record.Violation {
			leaders := map[int]record.ActorID{}
			for _, id := range v.Members() {
				if n, ok := v.Actor(id).(*ballotNode); ok && n.Leader {
					if other, dup := leaders[n.Ballot]; dup {
						return &record.Violation{Fingerprint: fmt.Sprintf("TwoLeaders(%s,%s)", other, id),
							Detail: fmt.Sprintf("%s and %s both lead ballot %d", other, id, n.Ballot)}
					}
					leaders[n.Ballot] = id
				}
			}
			return nil
		},
	}
}

// runWith runs the demi command line on cat.
func runCat(cat *record.Catalog, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), cat, args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestFuzzModesTracesAreOrdinary fuzzes in the rounds and coverage modes
// on Raft and on a system defined here, and replays, shows and minimizes
// what they write like any trace.
func TestFuzzModesTracesAreOrdinary(t *testing.T) {
	cat := record.NewCatalog(raft.System(), ballotSystem())
	cases := []struct{ system, bug, mode string }{
		{"raft", raft.Bug56, "rounds"},
		{"raft", raft.Bug42, "coverage"},
		{"ballot", "grant-equal", "rounds"},
		{"ballot", "grant-equal", "coverage"},
	}
	for _, c := range cases {
		t.Run(c.system+"-"+c.mode, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "found.trace")
			code, out, errs := runCat(cat, "fuzz", "--system", c.system, "--bug", c.bug, "--mode", c.mode, "--runs", "500", "-o", path)
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, "wrote "+path)
			if c.mode == "coverage" {
				require.Contains(t, out, "abstract states covered: ")
				require.Contains(t, out, "--mode coverage --system "+c.system+" --seed 1 --runs ")
			} else {
				require.Contains(t, out, "--mode rounds --system "+c.system+" --seed ")
			}
			// The command it prints makes the same trace again.
			line := out[strings.Index(out, "regenerate with: ")+len("regenerate with: "):]
			args := strings.Fields(strings.TrimSpace(line))[1:]
			again := filepath.Join(dir, "again.trace")
			args[len(args)-1] = again
			code, _, errs = runCat(cat, args...)
			require.Equal(t, 0, code, errs)
			require.Equal(t, read(t, path), read(t, again))

			code, out, errs = runCat(cat, "replay", path)
			require.Equal(t, 0, code, errs+out)
			code, out, errs = runCat(cat, "show", "--rounds", path)
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, "violation: ")
			min := filepath.Join(dir, "found.min.trace")
			code, out, errs = runCat(cat, "minimize", path, "-o", min, "--steps", "200000")
			require.Equal(t, 0, code, errs+out)
			code, out, errs = runCat(cat, "replay", min)
			require.Equal(t, 0, code, errs+out)
			code, out, errs = runCat(cat, "show", "--rounds", min)
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, "round ")
		})
	}
}

func TestFuzzModeFlags(t *testing.T) {
	cat := record.NewCatalog(raft.System(), ballotSystem())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "rounds", "--isolations", "0"}, "demi: --isolations 0: want 1 to 64\n"},
		{[]string{"--mode", "rounds", "--period", "0"}, "demi: --period 0: want 1 to 1000\n"},
		{[]string{"--mode", "rounds", "--fault-rounds", "0"}, "demi: --fault-rounds 0: want 1 to 100000\n"},
		{[]string{"--mode", "coverage", "--period", "3"}, "demi: --period is a flag of --mode rounds, not of --mode coverage\n"},
	} {
		code, _, errs := runCat(cat, append([]string{"fuzz", "--system", "raft", "--runs", "1", "-o", filepath.Join(t.TempDir(), "x")}, c.args...)...)
		require.Equal(t, 2, code)
		require.Equal(t, c.want, errs)
	}
	noRounds := record.NewCatalog(ballotSystem())
	sys, _ := noRounds.Lookup("ballot")
	sys.Messages = []record.Message{elect{}}
	code, _, errs := runCat(noRounds, "fuzz", "--system", "ballot", "--mode", "rounds", "--runs", "1", "-o", filepath.Join(t.TempDir(), "x"))
	require.Equal(t, 2, code)
	require.Equal(t, "demi: --mode rounds: system ballot: no message type of the system carries a round (record.Rounded)\n", errs)
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

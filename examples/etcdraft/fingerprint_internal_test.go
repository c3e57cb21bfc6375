package etcdraft

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// fingerprintFmt is the fingerprint as it was first written, with fmt:
// the shipped .min.trace files were minimized with it, so the faster
// fingerprint must give the very same strings.
func fingerprintFmt(msg record.Message) (string, bool) {
	m := carried(msg)
	if m == nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v %d>%d", m.GetType(), m.GetFrom(), m.GetTo())
	if m.GetReject() {
		b.WriteString(" reject")
	}
	for _, e := range m.GetEntries() {
		fmt.Fprintf(&b, " %q", e.GetData())
	}
	if m.GetSnapshot() != nil {
		b.WriteString(" snapshot")
	}
	return b.String(), true
}

func TestFingerprintSameStrings(t *testing.T) {
	msgs := shippedMessages(t)
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Responses != nil {
			continue
		}
		want, _ := fingerprintFmt(wrap(m))
		got, ok := fingerprint(wrap(m))
		require.True(t, ok)
		require.Equal(t, want, got, "message %d", i)
		seen[got] = true
	}
	assert.Greater(t, len(seen), 100)
	for _, edge := range []string{`MsgApp 0>0 "" "" "set k1 \x00\xff"`, "MsgAppResp 2>1 reject", "MsgSnap 0>0 snapshot", `MsgReadIndex 0>0 "r12"`} {
		assert.True(t, seen[edge], edge)
	}
	for _, msg := range []record.Message{Put{Key: "k"}, Tick{}, Campaign{}, Get{}} {
		_, ok := fingerprint(msg)
		assert.False(t, ok, "%T", msg)
	}
}

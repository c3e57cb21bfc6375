package etcdraft

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// TestLogMirror replays every shipped etcdraft trace and checks after
// every event that each running member's log, as refreshLogFrom keeps it
// after appends, is the log MemoryStorage holds (what refreshLog reads).
func TestLogMirror(t *testing.T) {
	files, err := filepath.Glob("../traces/etcdraft-*.trace")
	require.NoError(t, err)
	require.Len(t, files, 15)
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(System()))
		require.NoError(t, err)
		checked, longest := 0, 0
		var mismatch error
		wrapped := *sys
		wrapped.Invariant = func(v record.View) *record.Violation {
			for _, id := range v.Members() {
				m, ok := v.Actor(id).(*Member)
				if !ok || m.ms == nil || mismatch != nil {
					continue
				}
				kept := m.log
				m.refreshLog()
				if kept.first != m.log.first || len(kept.ents) != len(m.log.ents) {
					mismatch = fmt.Errorf("%s: log [%d, +%d), want [%d, +%d)", id, kept.first, len(kept.ents), m.log.first, len(m.log.ents))
				}
				for i := range min(len(kept.ents), len(m.log.ents)) {
					if kept.ents[i] != m.log.ents[i] && mismatch == nil {
						mismatch = fmt.Errorf("%s: entry %d differs", id, kept.first+uint64(i))
					}
				}
				m.log = kept
				checked++
				longest = max(longest, len(kept.ents))
			}
			return invariant(v)
		}
		r, err := replay.Run(context.Background(), &wrapped, tr)
		require.NoError(t, err)
		require.True(t, r.Reproduced, f)
		require.NoError(t, mismatch, f)
		require.Greater(t, checked, len(tr.Events), f)
		t.Logf("%s: %d logs checked, longest %d entries", filepath.Base(f), checked, longest)
	}
}

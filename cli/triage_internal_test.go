package cli

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

func TestAbstractMembers(t *testing.T) {
	ms := []record.ActorID{"raft-1", "raft-2", "raft-3", "raft-12"}
	for in, want := range map[string]string{
		"ElectionSafety(raft-1,raft-3)":  "ElectionSafety(#1,#2)",
		"ElectionSafety(raft-3,raft-1)":  "ElectionSafety(#1,#2)",
		"ElectionSafety(raft-12,raft-2)": "ElectionSafety(#1,#2)",
		"LogMatching(raft-2) raft-2":     "LogMatching(#1) #1",
		"two-tokens":                     "two-tokens",
	} {
		assert.Equal(t, want, abstractMembers(in, ms), in)
	}
}

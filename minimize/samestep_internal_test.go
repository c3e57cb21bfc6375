package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

func TestSameStepListsTheTargetsRelabellings(t *testing.T) {
	sym := raft.System().Symmetry
	members := []record.ActorID{"raft-1", "raft-2", "raft-3", "raft-4"}
	assert.Equal(t, []string{
		"LogMatching(raft-1,raft-4)", "LogMatching(raft-1,raft-2)", "LogMatching(raft-2,raft-3)",
		"LogMatching(raft-2,raft-4)", "LogMatching(raft-3,raft-4)",
	}, sameStep(sym, members, "LogMatching(raft-1,raft-3)"))
	assert.Empty(t, sameStep(sym, members[:1], "LogMatching(raft-1,raft-3)"))
	assert.Len(t, permutationsOf(3), 6)
	assert.Equal(t, []int{0, 1, 2}, permutationsOf(3)[0], "the identity first")
	assert.Nil(t, permutationsOf(maxSameStepMembers+1))
}

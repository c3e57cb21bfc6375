package etcdraft

import "go.etcd.io/raft/v3/raftpb"

// cloneMessage returns a deep copy of m: the receiver of a message must
// share no memory with its sender, nor with the trace that holds it.
func cloneMessage(m *raftpb.Message) *raftpb.Message {
	if m == nil {
		return nil
	}
	c := *m
	if m.Context != nil {
		c.Context = append([]byte{}, m.Context...)
	}
	if m.Entries != nil {
		c.Entries = make([]raftpb.Entry, len(m.Entries))
		for i, e := range m.Entries {
			c.Entries[i] = e
			if e.Data != nil {
				c.Entries[i].Data = append([]byte{}, e.Data...)
			}
		}
	}
	if m.Snapshot != nil {
		c.Snapshot = unmarshal[raftpb.Snapshot](marshal(m.Snapshot))
	}
	if m.Responses != nil {
		c.Responses = make([]raftpb.Message, len(m.Responses))
		for i := range m.Responses {
			c.Responses[i] = *cloneMessage(&m.Responses[i])
		}
	}
	return &c
}

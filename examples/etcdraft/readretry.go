package etcdraft

import "github.com/demi-project/demi/record"

// WithReadRetry returns the etcdraft system with one more option,
// read-retry (default off): a member arms a read-retry timer when it asks
// raft for a read index, and when the timer fires it asks again, with the
// same request context, for the read index of every read still waiting
// for one, as etcd's server retries a ReadIndex request that got no answer
// in time (its linearizable read loop resends the same request ID). The
// retry is what reaches the stale read index bug of go.etcd.io/raft/v3
// v3.6.0 (etcd-io/raft#397, docs/real-bugs.md);
// examples/realbugs/readindex-fixed builds this system against v3.7.0, the
// release with the fix. System leaves the option out, so that the traces
// it writes, whose headers list every option, stay as they were.
func WithReadRetry() *record.System {
	s := System()
	s.Options = append(s.Options, record.OptionSpec{Name: OptReadRetry, Default: "false",
		Usage: "a member asks raft again for the read index of a read not answered yet, with the same request context, when its read-retry timer fires (as etcd's server does)"})
	s.Messages = append(s.Messages, ReadRetry{})
	return s
}

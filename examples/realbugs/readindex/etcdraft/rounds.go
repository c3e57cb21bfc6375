package etcdraft

// The round view (record.Rounded): a raft message's round is its term and
// its phase its kind, so demi show --rounds lays a trace out term by term.
// Messages raft sends without a term (a follower's ReadIndex, a forwarded
// proposal: raft treats them as local to the leader) are in round 0.

// Round returns the term and the kind (record.Rounded).
func (m App) Round() (int, string) { return m.round("append") }

// Round returns the term and the kind (record.Rounded).
func (m AppResp) Round() (int, string) { return m.round("append-resp") }

// Round returns the term and the kind (record.Rounded).
func (m Vote) Round() (int, string) { return m.round("vote") }

// Round returns the term and the kind (record.Rounded).
func (m VoteResp) Round() (int, string) { return m.round("vote-resp") }

// Round returns the term and the kind (record.Rounded).
func (m Heartbeat) Round() (int, string) { return m.round("heartbeat") }

// Round returns the term and the kind (record.Rounded).
func (m HeartbeatResp) Round() (int, string) { return m.round("heartbeat-resp") }

// Round returns the term and the kind (record.Rounded).
func (m ReadIndex) Round() (int, string) { return m.round("read-index") }

// Round returns the term and the kind (record.Rounded).
func (m ReadIndexResp) Round() (int, string) { return m.round("read-index-resp") }

func (w Wire) round(phase string) (int, string) { return int(w.Msg.Term), phase }

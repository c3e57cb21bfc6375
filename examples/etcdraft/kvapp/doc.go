// Package kvapp is the application side of demi's etcd raft adapters that
// does not depend on the raft library: the key-value state machine (the
// commands entries carry, the store they build, its snapshot encoding),
// the clients' operation history a member records as ghost state, the
// Linearizability invariant over it, and the library's logger.
//
// examples/etcdraft (go.etcd.io/raft/v3 v3.7.0, the main module) and the
// nested modules of examples/realbugs, which pin other releases, share it:
// a package that imported raft would be built against each module's own
// release, so what differs between releases (the raftpb types, the RawNode
// API) stays in each adapter and what does not lives here, once.
package kvapp

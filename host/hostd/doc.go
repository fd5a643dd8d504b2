// Package hostd is the long-lived host of one state directory; the front
// end's side of its socket is hostd/hostclient (which links nothing of the
// host, for bin/demiurge-front), re-exported here for the full CLI.
//
// One host process owns STATE: the store, the plugins, the MCP
// connections, the sessions and the background tasks. Every other
// demiurge command is a front end: it connects to STATE/runtime/host.sock
// (gRPC, the contract in shared/proto/demiurge/host/v1), and when no host
// runs it starts one detached (Ensure). STATE/runtime/host.lock, held with
// flock for the host's whole life, makes "is a host running" a question
// the kernel answers: a socket file whose lock is free is stale, and two
// front ends starting at once serialise on STATE/runtime/host.start.lock,
// so one host is started.
//
// The socket is authenticated as the task socket is (runtime.AdmitPeer):
// the peer's uid, no demiurge host or plugin among its ancestors, and a
// per-run token 0600 beside the socket. The front end names its
// principal; the host issues the authority.
package hostd

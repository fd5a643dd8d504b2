package dispatch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/egress"
	"demiurge.dev/shared/sandbox"
)

// A call that ran with the network (a terminal command approved with
// network: true, an authored tool's worker in network mode) returns what
// servers sent it as much as what it made itself: a page curl printed, a
// body the code returned. Closed world: its whole result comes from
// outside, whatever it connected to (nothing included: a connection
// still open when the call ended is not yet an event).

// maxNetworkOrigins bounds the hosts an envelope's origin names.
const maxNetworkOrigins = 8

// networkOrigin names where a call that ran with the network reached:
// "egress:HOST:PORT ..." for each host its proxy let through, "network"
// when it reached none or ran without the proxy (the sandbox off). ok is
// false for a call that did not run with the network.
func (p *prepared) networkOrigin() (origin string, ok bool) {
	var evs []egress.Event
	var folded egress.Folded
	switch {
	case p.authoredEgress != nil:
		evs, folded = p.authoredEgress.Events(), p.authoredEgress.Folded()
	case networkRequested(p) && p.command.egress != nil:
		evs, folded = p.command.connections, p.command.folded
		if evs == nil { // the proxy still runs: what ended so far
			evs, folded = p.command.egress.Events(), p.command.egress.Folded()
		}
	case networkRequested(p):
		// approved with the network but run without the proxy (no
		// sandbox, or the operator's --sandbox off): it could reach
		// anything, or it failed before it ran
		return "network", true
	default:
		return "", false
	}
	var hosts []string
	more := 0
	reached := func(host string, port uint16) {
		h := "egress:" + host + ":" + strconv.Itoa(int(port))
		switch {
		case slices.Contains(hosts, h):
		case len(hosts) == maxNetworkOrigins:
			more++
		default:
			hosts = append(hosts, h)
		}
	}
	for _, e := range evs {
		if e.Verdict == "refused" { // a failed exchange may have brought bytes
			continue
		}
		reached(e.Host, e.Port)
	}
	// Past the connections kept in full: the folded hosts reached, and
	// any other host reached counts as more.
	for _, h := range folded.Hosts {
		if h.Reached > 0 {
			reached(h.Host, h.Port)
		}
	}
	more += folded.OthersReached
	if len(hosts) == 0 {
		return "network", true
	}
	if more > 0 {
		hosts = append(hosts, fmt.Sprintf("(+%d more)", more))
	}
	return strings.Join(hosts, " "), true
}

// authoredWithNetwork reports whether e is an authored tool whose worker
// runs in network mode.
func authoredWithNetwork(e *catalog.Entry) bool {
	return e != nil && e.Spec.Provenance.Kind == catalog.SourceAuthored && authoredMode(e.Effective.Capabilities) == sandbox.Network
}

// mayRunWithNetwork reports whether an entry's calls can run with the
// network: a command tool (its network argument) or an authored tool
// declaring network.fetch. The model's instructions then explain the
// envelope.
func mayRunWithNetwork(e *catalog.Entry) bool {
	if e.Spec.Provenance.Kind == catalog.SourceAuthored {
		return authoredWithNetwork(e)
	}
	for _, s := range e.Spec.Subjects {
		if s.Kind == catalog.SubjectCommand {
			return true
		}
	}
	return false
}

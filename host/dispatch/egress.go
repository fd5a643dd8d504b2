package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"demiurge.dev/host/egress"
	"demiurge.dev/host/runtime"
)

// EventKindNetConnection is the audit event of one connection a
// network-mode command made through the host's egress proxy, tied to its
// call: host, port, the address dialled, bytes each way and the verdict.
const EventKindNetConnection = "net.connection"

// startEgress starts the proxy of one network-mode call. Each connection,
// when it ends, becomes an audit event of the call (a background task's
// too, for as long as it runs), and is kept for the call's own audit.
func (t *Turn) startEgress(p *prepared) (*egress.Proxy, error) {
	session, tool, callID := t.Authority.Session, p.call.Name, p.call.ID
	px, err := egress.Start(t.Sandbox.Egress.Config(), func(ev egress.Event) {
		if t.Events == nil {
			return
		}
		body, err := json.Marshal(ev)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = t.Events.Append(ctx, runtime.Event{Kind: EventKindNetConnection, Session: session, Tool: tool, CallID: callID, Data: body})
	})
	if err != nil {
		return nil, fmt.Errorf("network access refused: the host's egress proxy cannot start (%v), and network mode goes only through it", err)
	}
	return px, nil
}

// proxy is the command's egress proxy, nil for a call that runs no
// command (a background evolve_core start, an authored tool).
func (c *commandPlan) proxy() *egress.Proxy {
	if c == nil {
		return nil
	}
	return c.egress
}

// closeEgress ends the call's proxy (its command has ended) and keeps its
// connections for the call's audit.
func (c *commandPlan) closeEgress() {
	if c == nil || c.egress == nil {
		return
	}
	c.egress.Close()
	c.connections, c.folded = c.egress.Events(), c.egress.Folded()
}

// connectionAudit is the call audit's summary of its connections: the
// first the proxy kept, each in full, then one entry of kind "folded"
// summing the rest (egress.Folded: how many, verdicts, bytes, per host).
func connectionAudit(evs []egress.Event, folded egress.Folded) []map[string]any {
	out := make([]map[string]any, 0, len(evs)+1)
	for _, e := range evs {
		m := map[string]any{"host": e.Host, "port": int(e.Port), "verdict": e.Verdict,
			"bytes_sent": e.Sent, "bytes_received": e.Recv, "kind": e.Kind}
		if e.Addr != "" {
			m["addr"] = e.Addr
		}
		if e.Reason != "" {
			m["reason"] = e.Reason
		}
		out = append(out, m)
	}
	if folded.Count > 0 {
		out = append(out, map[string]any{"kind": "folded", "folded": folded})
	}
	return out
}

// closeAuthoredEgress ends an authored worker's proxy.
func (p *prepared) closeAuthoredEgress() {
	if p.authoredEgress != nil {
		p.authoredEgress.Close()
	}
}

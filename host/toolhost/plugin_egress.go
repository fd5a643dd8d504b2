package toolhost

import (
	"context"
	"encoding/json"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/egress"
	"demiurge.dev/host/runtime"
	sredact "demiurge.dev/shared/redact"
)

// pluginConnection is the audit data of one connection a confined plugin
// made through its egress proxy: the proxy's event (what it saw: a
// CONNECT's host and port, a plain request's host, port and method, never
// a path) and whose it was.
type pluginConnection struct {
	egress.Event
	Plugin  string `json:"plugin"`
	Package string `json:"package,omitempty"`
}

// recordPluginEgress appends a net.connection audit event for a confined
// plugin's connection, allowed or not. It has no call (a plugin connects
// when it likes), so the event names the plugin instead. What the plugin
// chose to send (the host it named, and the refusal quoting it) passes
// the host's secret redaction first: a package that learned its key from
// a call could put it in a host name it knows will be refused. The proxy
// bounds how many of these wait at once (egress.maxPendingEvents), and the
// store's queue bounds the rest.
func (h *Host) recordPluginEgress(plugin, pkg string, ev egress.Event) {
	store, err := h.Store()
	if err != nil {
		return
	}
	if r := sredact.FromMap(h.hostCredentials()); !r.Empty() {
		ev.Host, ev.Addr, ev.Reason, ev.Method = r.String(ev.Host), r.String(ev.Addr), r.String(ev.Reason), r.String(ev.Method)
	}
	body, err := json.Marshal(pluginConnection{Event: ev, Plugin: plugin, Package: pkg})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = store.Append(ctx, runtime.Event{Kind: dispatch.EventKindNetConnection, Data: body})
}

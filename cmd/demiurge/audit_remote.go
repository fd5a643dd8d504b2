package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// auditEvents reads the event log, newest first: from the running host
// (started if none runs), or in process with DEMIURGE_HOST=off.
func auditEvents(c *cli.Context, q runtime.EventQuery) ([]runtime.Event, error) {
	if !hostEnabled() {
		h, err := openHost(c, nil)
		if err != nil {
			return nil, err
		}
		defer h.Close()
		store, err := h.Store()
		if err != nil {
			return nil, err
		}
		return store.Events(q)
	}
	cl, err := connectHost(c)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	if err := cl.Needs(1, "audit"); err != nil {
		return nil, err
	}
	res, err := cl.Audit(c.Context, &hostv1.AuditRequest{Tool: q.Tool, Kind: q.Kind, Limit: int32(q.Limit)})
	if err != nil {
		return nil, fmt.Errorf("the host (pid %d): %w", cl.PID, err)
	}
	var evs []runtime.Event
	if err := json.Unmarshal(res.Events, &evs); err != nil {
		return nil, fmt.Errorf("the host's events could not be read: %w", err)
	}
	return evs, nil
}

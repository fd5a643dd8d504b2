package dispatch

import (
	"encoding/json"
	"sync"

	"demiurge.dev/host/runtime"
)

// auditMaps hold one audit event's data while it is encoded. Every call
// builds one, and MarshalData keeps nothing of them, so they are reused
// rather than allocated per call.
type auditMaps struct{ data, approval map[string]any }

var auditPool = sync.Pool{New: func() any {
	return &auditMaps{data: make(map[string]any, 16), approval: make(map[string]any, 4)}
}}

// auditData encodes the data of a call's tool.call event: its event view,
// status and duration, the approval, the assessment, the tool's source
// and what the command audit may say.
func auditData(p *prepared, out Outcome) (json.RawMessage, error) {
	m := auditPool.Get().(*auditMaps)
	data := m.data
	data["status"], data["duration_ms"] = string(out.Status), out.Duration.Milliseconds()
	for k, v := range out.Views.Event {
		data[k] = v
	}
	if out.Approval.Via != "" {
		a := m.approval
		a["allowed"], a["via"], a["scope"], a["reason"] = out.Approval.Allowed, out.Approval.Via, out.Approval.Scope, out.Approval.Reason
		data["approval"] = a
	}
	if p.assess != nil {
		data["risk"] = p.assess.Risk.String()
		data["policy"] = p.assess.Approval.String()
		data["resource_keys"] = p.assess.ResourceKeys
	}
	if p.entry != nil {
		// A pointer encodes as the struct does, without copying it.
		data["source"] = &p.entry.Spec.Provenance
	}
	if c := p.command.audit(); c != nil {
		data["command"] = c
	}
	body, err := runtime.MarshalData(data)
	clear(m.data)
	clear(m.approval)
	auditPool.Put(m)
	return body, err
}

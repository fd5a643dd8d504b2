package dispatch

import (
	"encoding/json"
	"strconv"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/internal/jsonenc"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
)

// auditMaps hold one audit event's data while it is encoded. Every call
// builds one, and MarshalData keeps nothing of them, so they are reused
// rather than allocated per call.
type auditMaps struct{ data, approval map[string]any }

var auditPool = sync.Pool{New: func() any {
	return &auditMaps{data: make(map[string]any, 16), approval: make(map[string]any, 4)}
}}

// auditBufs hold the bytes of one audit event's data while it is
// appended. No EventSink keeps ev.Data after Append returns (turn.go), so
// the next call writes into the same buffer instead of allocating and
// growing a new one: about 1.4 KB of garbage less per call.
var auditBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 1024)
	return &b
}}

// maxPooledAudit keeps an unusually large event's buffer out of the pool.
const maxPooledAudit = 16 << 10

// auditData encodes the data of a call's tool.call event: its event view,
// status and duration, the approval, the assessment (resource keys and
// side-effect category), the tool's source and effect class, and what
// the command audit may say. The direct form writes into buf (auditBufs).
func auditData(p *prepared, out Outcome, buf []byte) (json.RawMessage, error) {
	if body, ok, err := auditDataDirect(p, out, buf); ok {
		return body, err
	}
	return auditDataMap(p, out)
}

// releaseAuditBuf gives the buffer back once Append has returned; body,
// which the sink no longer holds, becomes the buffer when it grew.
func releaseAuditBuf(buf *[]byte, body []byte) {
	if cap(body) > cap(*buf) && cap(body) <= maxPooledAudit {
		*buf = body[:0]
	}
	auditBufs.Put(buf)
}

// screeningKey is the field wrapUntrusted (untrusted.go) adds to the event view of a
// call whose result came from outside (every MCP call).
const screeningKey = "screening"

// auditDataDirect writes the fields auditDataMap would put in its map,
// in the order MarshalData sorts them into, when redact.Make made the
// event view and at most the screening was added to it (ok is false
// otherwise): the same bytes, without building, sorting and clearing a
// map of fourteen fields.
func auditDataDirect(p *prepared, out Outcome, b []byte) (body json.RawMessage, ok bool, err error) {
	ev, made := out.Views.Event.Meta()
	added := out.Views.Event.Added()
	screening, screened := added[screeningKey]
	if !made || len(added) > 1 || len(added) == 1 && !screened {
		return nil, false, nil
	}
	// The fields in the order MarshalData sorts them into: approval
	// arg_keys call_id command duration_ms effect_class is_error policy
	// resource_keys risk screening secret_sources side_effect sizes
	// source status tool.
	b = append(b[:0], '{')
	// Every key below is a constant of plain letters and underscores,
	// which JSON writes as they are: no escaping to look for.
	key := func(k string) { b = append(append(append(b, '"'), k...), '"', ':') }
	str := func(k, v string) { key(k); b = append(jsonenc.String(b, v, true), ',') }
	value := func(k string, v any) {
		if err == nil {
			key(k)
			b, err = jsonenc.Append(b, v, true)
			b = append(b, ',')
		}
	}
	if a := out.Approval; a.Via != "" {
		key("approval")
		b = append(appendApproval(b, a.Allowed, a.Reason, a.Scope, a.Via), ',')
	}
	key("arg_keys")
	b = append(jsonenc.Strings(b, ev.ArgKeys, true), ',')
	str("call_id", ev.CallID)
	if c := p.command.audit(p.auditSecrets); c != nil {
		value("command", c)
	}
	key("duration_ms")
	b = append(strconv.AppendInt(b, out.Duration.Milliseconds(), 10), ',')
	if p.entry != nil {
		str("effect_class", string(p.entry.Spec.Effect))
	}
	key("is_error")
	b = append(strconv.AppendBool(b, ev.IsError), ',')
	if p.assess != nil {
		str("policy", p.assess.Approval.String())
		key("resource_keys")
		b = append(jsonenc.Strings(b, p.auditResourceKeys(), true), ',')
		str("risk", p.assess.Risk.String())
	}
	if screened {
		value(screeningKey, screening)
	}
	key("secret_sources")
	b = append(jsonenc.Strings(b, ev.SecretSources, true), ',')
	if p.assess != nil && p.entry != nil {
		str("side_effect", p.assess.SideEffect(p.entry.Spec.Effect))
	}
	key("sizes")
	b = append(ev.Sizes.AppendJSON(b), ',')
	if p.entry != nil {
		key("source")
		b = append(appendProvenance(b, &p.entry.Spec.Provenance), ',')
	}
	str("status", string(out.Status))
	str("tool", ev.Tool)
	if err != nil {
		return nil, true, err
	}
	b[len(b)-1] = '}' // the last field's comma
	return b, true, nil
}

// appendApproval writes the approval object as MarshalData writes the map
// auditDataMap builds for it: allowed, reason, scope, via.
func appendApproval(b []byte, allowed bool, reason, scope, via string) []byte {
	b = append(jsonenc.AppendKey(append(b, '{'), "allowed", true), strconv.FormatBool(allowed)...)
	for _, f := range [...][2]string{{"reason", reason}, {"scope", scope}, {"via", via}} {
		b = jsonenc.String(jsonenc.AppendKey(append(b, ','), f[0], true), f[1], true)
	}
	return append(b, '}')
}

// appendProvenance writes a tool's source as json.Marshal writes the
// catalog.Provenance struct (fields in declaration order, the optional
// ones omitted when empty), without its reflection.
func appendProvenance(b []byte, pv *catalog.Provenance) []byte {
	str := func(b []byte, key, value string) []byte {
		return jsonenc.String(jsonenc.AppendKey(b, key, true), value, true)
	}
	b = str(append(b, '{'), "kind", string(pv.Kind))
	b = str(append(b, ','), "toolset", pv.Toolset)
	for _, f := range [...][2]string{{"plugin", pv.Plugin}, {"version", pv.Version}, {"path", pv.Path}} {
		if f[1] != "" {
			b = str(append(b, ','), f[0], f[1])
		}
	}
	return append(b, '}')
}

// auditDataMap builds the data in a map and has MarshalData encode it:
// for event views of any other shape.
func auditDataMap(p *prepared, out Outcome) (json.RawMessage, error) {
	m := auditPool.Get().(*auditMaps)
	data := m.data
	data["status"], data["duration_ms"] = string(out.Status), out.Duration.Milliseconds()
	out.Views.Event.AddTo(data)
	if out.Approval.Via != "" {
		a := m.approval
		a["allowed"], a["via"], a["scope"], a["reason"] = out.Approval.Allowed, out.Approval.Via, out.Approval.Scope, out.Approval.Reason
		data["approval"] = a
	}
	if p.assess != nil {
		data["risk"] = p.assess.Risk.String()
		data["policy"] = p.assess.Approval.String()
		data["resource_keys"] = p.auditResourceKeys()
	}
	if p.entry != nil {
		// A pointer encodes as the struct does, without copying it.
		data["source"] = &p.entry.Spec.Provenance
		// What the tool may do, and beside the resource keys what this
		// call does (policy.Assessment.SideEffect).
		data["effect_class"] = string(p.entry.Spec.Effect)
		if p.assess != nil {
			data["side_effect"] = p.assess.SideEffect(p.entry.Spec.Effect)
		}
	}
	if c := p.command.audit(p.auditSecrets); c != nil {
		data["command"] = c
	}
	body, err := runtime.MarshalData(data)
	clear(m.data)
	clear(m.approval)
	auditPool.Put(m)
	return body, err
}

// auditResourceKeys are the call's resource keys as the audit writes
// them: a path or cwd may hold a value the call's views hide (a file
// named after a password, a host credential, a well-known token), and
// the event log keeps no value.
func (p *prepared) auditResourceKeys() []string {
	keys := p.assess.ResourceKeys
	var out []string
	for i, k := range keys {
		r := redact.TextOf(k, p.auditSecrets)
		if r != k && out == nil {
			out = append(make([]string, 0, len(keys)), keys[:i]...)
		}
		if out != nil {
			out = append(out, r)
		}
	}
	if out == nil {
		return keys
	}
	return out
}

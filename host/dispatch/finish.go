package dispatch

import (
	"context"
	"encoding/json"
	"time"

	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// EventKindToolCall is the audit event every call writes.
const EventKindToolCall = "tool.call"

// auditWithheld replaces every view when the audit event could not be
// written: a result nobody can account for is not handed out.
const auditWithheld = "the call's audit event could not be written, so its result is withheld"

// finish runs steps 7 and 8: redact into the five views, then make the
// audit event durable before anyone sees a result.
func (t *Turn) finish(ctx context.Context, p *prepared, out Outcome, status Status, res *toolsetv1.ToolResult) Outcome {
	out.Status = status
	out.Duration = time.Since(p.start)
	raw := redact.Raw{
		Tool: p.call.Name, CallID: p.call.ID, Args: p.args, ShownArgs: p.shownArgs(),
		IsError: res.GetIsError(), Content: res.GetContent(),
		ModelOutput: res.GetModelOutput(), HasModelOutput: res.GetHasModelOutput(),
		DisplayOutput: res.GetDisplayOutput(), HasDisplayOutput: res.GetHasDisplayOutput(),
	}
	setStructured(&raw, res.GetStructured())
	// The arguments' secrets as admit found them, not searched again.
	raw.ArgSecrets, raw.ArgsSearched = p.secretsInArgs(), true
	bound := p.command.secrets()
	early := t.startScreening(p, &raw)
	known := append(append(bound, t.Remembered.secrets()...), t.HostSecrets.in(&raw)...)
	out.Views = redact.Make(raw, known)
	// What the audit writes beside the views (resource keys, the
	// command's cwd) is redacted with the same values.
	p.auditSecrets = append(known, raw.ArgSecrets...)
	t.Remembered.remember(bound)
	if !applyOutputPolicies(p, &out.Views) {
		t.wrapUntrusted(p, &out.Views, early)
	}
	p.command.noteUndid(out.Views)

	if t.Events == nil {
		return out
	}
	buf := auditBufs.Get().(*[]byte)
	body, err := auditData(p, out, *buf)
	if err == nil {
		// The audit record is written even when the caller gave up.
		actx := newAuditContext(ctx) // audit_ctx.go
		defer actx.stop()
		out.EventSeq, err = t.Events.Append(actx, runtime.Event{
			Kind: EventKindToolCall, Session: t.Authority.Session,
			Tool: p.call.Name, CallID: p.call.ID, Data: body,
		})
	}
	releaseAuditBuf(buf, body)
	if err != nil {
		out.Status = StatusAuditFailed
		out.Views = redact.Views{
			Model: redact.ModelText(auditWithheld),
			Card:  redact.Card{Title: p.call.Name, Body: auditWithheld + ": " + err.Error(), IsError: true},
			Event: redact.EventOf(map[string]any{"tool": p.call.Name, "status": string(StatusAuditFailed)}),
		}.WithDebug("error", err.Error())
	}
	return out
}

// setStructured gives raw the result's structured content: a plain one
// (the common result) read but not decoded (redact.Deferred: the call
// path seldom reads it whole), any other decoded as structuredObject
// does. A result that is not plain is read twice, the price of reading
// the common one without building it.
func setStructured(raw *redact.Raw, b []byte) {
	if s, ok := scanObject(b); ok && s.plain {
		raw.Deferred = &redact.Deferred{Keys: s.keys, ExitCode: s.exitCode, Text: s.text, Decode: decodeDeferred}
		raw.StructuredPlain = true
		return
	}
	raw.Structured, raw.StructuredPlain = structuredObject(b)
}

// decodeDeferred is redact.Deferred's Decode: the object the result would
// have been decoded to at once.
func decodeDeferred(text string) map[string]any {
	m, _ := structuredObject([]byte(text))
	return m
}

// structuredObject decodes a result's structured content; anything but a
// JSON object (invalid JSON, an array, a number) is dropped. Decoded into
// an interface, encoding/json builds the map without reflection; the
// common shape takes a shortcut proven equal to it (fastObject).
//
// plain is fastObjectPlain's answer (redact.Raw.StructuredPlain); a result
// encoding/json decoded is never plain, and redaction walks it.
func structuredObject(b []byte) (m map[string]any, plain bool) {
	if len(b) == 0 {
		return nil, false
	}
	if m, plain, ok := fastObjectPlain(b); ok {
		return m, plain
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil, false
	}
	m, _ = v.(map[string]any)
	return m, false
}

package dispatch

import (
	"regexp"
	"strings"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/untrusted"
)

// Untrusted output (seed 004: what external servers return is screened at
// the host boundary). The model view of a call whose result comes from
// outside is wrapped in an envelope naming its origin, bounded by the
// turn's random boundary, with the screening's verdict; the verdict goes
// into the event, record and debug views, and a flagged result's card
// says so. Nothing is dropped: the content inside is the model view as
// redaction made it.

// untrustedState is a Turn's boundary, drawn on first use unless the
// agent loop set one for the whole model turn.
type untrustedState struct {
	once     sync.Once
	boundary string
}

// EnvelopeBoundary is the boundary of this turn's envelopes.
func (t *Turn) EnvelopeBoundary() string {
	t.untrusted.once.Do(func() {
		if t.Boundary == "" {
			t.Boundary = untrusted.NewBoundary()
		}
		t.untrusted.boundary = t.Boundary
	})
	return t.untrusted.boundary
}

// HasUntrustedTools reports whether any tool of the turn's catalog gives
// results the host wraps: the model's instructions then explain the
// envelope.
func (t *Turn) HasUntrustedTools() bool {
	if t.Catalog == nil {
		return false
	}
	for _, e := range t.Catalog.Entries() {
		if t.untrustedKind(e) != "" || mayHearChildren(e) || mayRunWithNetwork(e) {
			return true
		}
	}
	return false
}

// untrustedKind says why an entry's results come from outside: "mcp" (an
// MCP server), "agent" (delegate_task: a child agent's answer),
// "history" (session_search: windows cut out of stored messages, which
// hold what came from outside before and lost its envelope in the cut),
// "network" (a tool that fetches, such as web_extract and the web_search
// packages), "workspace" (a file read of the workspace, when the core
// asks for it), or "" (the host's own).
func (t *Turn) untrustedKind(e *catalog.Entry) string {
	switch {
	case e == nil:
		return ""
	case e.Spec.Provenance.Kind == catalog.SourceMCP:
		return "mcp"
	case e.Spec.GrantsHostService(catalog.ServiceDelegate):
		// A child's answer: its model wrote it after reading what this
		// session never saw (files, MCP results, web pages).
		return "agent"
	case e.Spec.GrantsHostService(catalog.ServiceSessionHistory):
		// Stored history: a hit is a window of a message (an MCP result,
		// a web page, a child's answer) without the envelope it arrived
		// in, and a preview may be a host-written message holding one.
		return "history"
	case e.Spec.Effect == catalog.EffectNetwork:
		return "network"
	case t.UntrustedWorkspaceReads && e.Spec.Effect == catalog.EffectRead && readsPaths(e.Spec.Subjects):
		return "workspace"
	}
	return ""
}

func readsPaths(subjects []catalog.Subject) bool {
	for _, s := range subjects {
		if s.Kind == catalog.SubjectPath && s.Access == catalog.AccessRead {
			return true
		}
	}
	return false
}

// untrustedOrigin names where a call's result came from: the MCP server,
// the credential-free origin of the URL it fetched, or the workspace
// paths it read.
func untrustedOrigin(kind string, p *prepared) string {
	pv := p.entry.Spec.Provenance
	keyed := func(prefix string) []string {
		var out []string
		if p.assess != nil {
			for _, k := range p.assess.ResourceKeys {
				if v, ok := strings.CutPrefix(k, prefix); ok {
					out = append(out, v)
				}
			}
		}
		return out
	}
	switch kind {
	case "mcp":
		return "mcp:" + pv.Toolset
	case "history":
		return "history"
	case "network":
		if urls := keyed(policy.ResourceKeyNet); len(urls) > 0 {
			return strings.Join(urls, " ")
		}
		return "tool:" + p.entry.Spec.Name + " (" + pv.Toolset + ")"
	}
	if paths := keyed(policy.ResourceKeyFS); len(paths) > 0 {
		return "workspace:" + strings.Join(paths, " ")
	}
	return "workspace"
}

// wrapUntrusted applies the envelope and the screening to a call's
// views, when its tool's output comes from outside and the call ran.
// early, when not nil, is the screening and envelope started as the
// result arrived.
func (t *Turn) wrapUntrusted(p *prepared, v *redact.Views, early *earlyScreen) {
	kind := t.untrustedKind(p.entry)
	if kind == "" && p.status == "" {
		// Authored code given a child's answer, or a call that ran with
		// the network: what it returns, failures included, may carry
		// what came from outside.
		if heard := p.heard.origin(); heard != "" {
			t.wrapAs(v, early, "agent", heard)
			return
		}
		if origin, ok := p.networkOrigin(); ok {
			t.wrapAs(v, early, "network", origin)
			return
		}
	}
	if kind == "" || v.Failed || p.status != "" {
		return
	}
	origin := untrustedOrigin(kind, p)
	if kind == "agent" {
		var ended bool
		if origin, ended = ChildOrigin(v.Structured()); !ended {
			return // a child started: the host's own words, no answer yet
		}
	}
	t.wrapAs(v, early, kind, origin)
}

// wrapAs wraps a call's model view in the envelope of origin, and notes
// the screening in its event, record and card.
func (t *Turn) wrapAs(v *redact.Views, early *earlyScreen, kind, origin string) {
	model, verdict := early.wrap(t.EnvelopeBoundary(), origin, v.Model.String())
	v.Model = model
	screening := map[string]any{
		"source":  kind,
		"origin":  origin,
		"verdict": verdictWord(verdict),
	}
	if verdict.Flagged {
		sigs := make([]any, len(verdict.Signals))
		for i, s := range verdict.Signals {
			sigs[i] = map[string]any{"kind": s.Kind, "count": s.Count, "first": s.First}
		}
		screening["signals"] = sigs
		v.Card.Body = "⚠ untrusted content from " + origin + " was " + verdict.Summary() + "\n" + v.Card.Body
	}
	if !v.Event.IsZero() { // and so the record and debug views (redact.Views)
		v.Event.Set("screening", screening)
	}
}

func verdictWord(v untrusted.Verdict) string {
	if v.Flagged {
		return "flagged"
	}
	return "clean"
}

// ChildOrigin is the envelope origin of a child's result (delegate_task's
// payload): "agent:ID". ended is false only for a child that was started
// and has not ended (status running or queued: the host's own words, no
// answer); anything else, an unreadable payload included, is wrapped.
func ChildOrigin(structured any) (origin string, ended bool) {
	m, _ := structured.(map[string]any)
	switch st, _ := m["status"].(string); st {
	case "running", "queued":
		return "", false
	}
	return ChildAgentOrigin(stringOf(m["agent_id"])), true
}

// ChildAgentOrigin names a child agent as an envelope origin: "agent:ID"
// for a session id the host made, "agent" for anything else.
func ChildAgentOrigin(id string) string {
	if !childID.MatchString(id) {
		return "agent"
	}
	return "agent:" + id
}

var childID = regexp.MustCompile(`^ses_[0-9a-f]{1,64}$`)

func stringOf(v any) string { s, _ := v.(string); return s }

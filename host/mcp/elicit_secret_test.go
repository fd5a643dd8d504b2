package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/approval"
)

// Declared header values that encoding escapes: a quote and a backslash
// (JSON and %q), HTML characters (json.Marshal's \u0026), U+2028 (JSON)
// and U+00A0 (%q). Each begins with "lynx", which no replacement keeps,
// so any spelling of any of them shows as "lynx" on the card or in the
// report.
var escapedDeclared = []string{`lynx1"quote\back`, `lynx2&amp<gt>`, "lynx3\u2028sep", "lynx4\u00a0nbsp"}

// escapedDeclaredManifest declares escapedDeclared as headers of server
// "form" at url.
func escapedDeclaredManifest(url string) string {
	var b strings.Builder
	b.WriteString("url: " + url + "\nheaders:\n")
	for i, v := range escapedDeclared {
		q, _ := json.Marshal(v) // a JSON string is a YAML double-quoted scalar
		b.WriteString("  X-Key-" + string(rune('A'+i)) + ": " + string(q) + "\n")
	}
	return b.String()
}

// TestElicitCardHidesEveryDeclaredSpelling: a server's form whose
// defaults, enum values, names and words hold the server's declared
// values shows none of them on the card, however the card encodes them
// (the defaults were shown as JSON and the JSON replaced byte for byte,
// so a value with a quote, a backslash, & < > or U+2028 reached the
// operator's screen and the approval record).
func TestElicitCardHidesEveryDeclaredSpelling(t *testing.T) {
	s := escapedDeclared
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"a":  map[string]any{"type": "string", "default": s[0]},
		"b":  map[string]any{"type": "string", "default": s[1], "description": s[2]},
		"c":  map[string]any{"type": "array", "items": map[string]any{"enum": []any{s[2], s[3]}}, "default": []any{s[2], s[3]}},
		"d":  map[string]any{"type": "string", "enum": []any{s[3]}, "default": s[3], "title": s[0]},
		s[1]: map[string]any{"type": "boolean", "default": true},
	}}
	p := &recorder{answer: approval.AllowOnce}
	got, reports := elicitCallManifest(t, escapedDeclaredManifest(formServer(t, "message "+s[0]+" "+s[2], schema)), &approval.Resolver{Provider: p})
	if got.Action != mcp.ElicitationResponseActionAccept {
		t.Fatalf("%+v", got)
	}
	forms := p.forms()
	if len(forms) != 1 {
		t.Fatalf("asked %d times", len(forms))
	}
	card := approval.CardText(forms[0])
	for _, text := range append(append([]string{card, forms[0].Preview}, forms[0].Reasons...), reportReasons(reports)...) {
		if strings.Contains(text, "lynx") {
			t.Errorf("a declared value reaches the card or the report: %q", text)
		}
	}
	if !strings.Contains(forms[0].Preview, "a (string) = ") || !strings.Contains(forms[0].Preview, "c (array) = [") {
		t.Errorf("the preview lost its fields:\n%s", forms[0].Preview)
	}
}

// TestElicitDeclineReportHidesEveryDeclaredSpelling: a form declined
// unasked is reported with the field it stumbled on quoted; a declared
// value in that name, its type or the mode was quoted (%q escapes it)
// before the report was redacted, and reached the audit.
func TestElicitDeclineReportHidesEveryDeclaredSpelling(t *testing.T) {
	s := escapedDeclared
	for name, schema := range map[string]any{
		"name of a field of another type": map[string]any{"type": "object", "properties": map[string]any{s[0]: map[string]any{"type": "object"}}},
		"unknown type":                    map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": s[3]}}},
		"required, not a property":        map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{s[2]}},
		"required without default":        map[string]any{"type": "object", "properties": map[string]any{s[1]: map[string]any{"type": "string"}}, "required": []any{s[1]}},
		"not a schema":                    map[string]any{"type": "object", "properties": map[string]any{s[3]: "string"}},
		"array without items":             map[string]any{"type": "object", "properties": map[string]any{s[2]: map[string]any{"type": "array"}}},
		"bad default":                     map[string]any{"type": "object", "properties": map[string]any{s[0]: map[string]any{"type": "integer", "default": "x"}}},
	} {
		p := &recorder{answer: approval.AllowOnce}
		got, reports := elicitCallManifest(t, escapedDeclaredManifest(formServer(t, "fill me in", schema)), &approval.Resolver{Provider: p})
		if got.Action != mcp.ElicitationResponseActionDecline || len(p.forms()) != 0 || len(reports) != 1 {
			t.Errorf("%s: %+v, asked %d times, reported %+v; want one decline unasked", name, got, len(p.forms()), reports)
			continue
		}
		if strings.Contains(reports[0].Reason, "lynx") || !strings.HasPrefix(reports[0].Reason, "declined unasked: ") {
			t.Errorf("%s: reported %q", name, reports[0].Reason)
		}
	}
}

func reportReasons(reports []Elicitation) []string {
	var out []string
	for _, r := range reports {
		out = append(out, r.Reason)
	}
	return out
}

// TestElicitFormHidesWellKnownTokens: a token of a well-known format in a
// form's message, default, name or type is replaced on the card and in
// the report, as in a connect diagnostic (redactErr): a server may have
// read one where the operator left it. Before, the form's words were
// replaced by the declared values only.
func TestElicitFormHidesWellKnownTokens(t *testing.T) {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string", "default": "x " + tok, "description": tok},
		tok: map[string]any{"type": "array", "items": map[string]any{"enum": []any{tok}}, "default": []any{tok}},
	}}
	p := &recorder{answer: approval.AllowOnce}
	got, reports := elicitCallReported(t, formServer(t, "your key "+tok+" please", schema), &approval.Resolver{Provider: p})
	if got.Action != mcp.ElicitationResponseActionAccept || len(p.forms()) != 1 {
		t.Fatalf("%+v, asked %d times", got, len(p.forms()))
	}
	f := p.forms()[0]
	for _, text := range append(append([]string{approval.CardText(f), f.Preview}, f.Reasons...), reportReasons(reports)...) {
		if strings.Contains(text, "16C7e42F") {
			t.Errorf("a token reaches the card or the report: %q", text)
		}
	}
	for name, schema := range map[string]any{
		"name": map[string]any{"type": "object", "properties": map[string]any{tok: map[string]any{"type": "object"}}},
		"type": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": tok}}},
	} {
		got, reports := elicitCallReported(t, formServer(t, "m", schema), &approval.Resolver{Provider: &recorder{answer: approval.AllowOnce}})
		if got.Action != mcp.ElicitationResponseActionDecline || len(reports) != 1 || strings.Contains(reports[0].Reason, "16C7e42F") {
			t.Errorf("%s: %+v, reported %+v", name, got, reports)
		}
	}
}

// TestElicitFormHidesTheHostsCredentials: a host credential (the model's
// key, a secret-named variable: Config.HostSecrets) that a server found
// and put in a form is replaced on the card and in the report, as in
// every view of a call (dispatch.HostSecrets); the pool knew only the
// server's declared values.
func TestElicitFormHidesTheHostsCredentials(t *testing.T) {
	host := map[string]string{"MODEL_API_KEY": "lynx-host-9f3a1c", "SOME_TOKEN": `lynx"host\&2`}
	configure := func(cfg *Config) { cfg.HostSecrets = func() map[string]string { return host } }
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"a":                map[string]any{"type": "string", "default": host["SOME_TOKEN"], "description": host["MODEL_API_KEY"]},
		"lynx-host-9f3a1c": map[string]any{"type": "boolean", "default": true},
	}}
	p := &recorder{answer: approval.AllowOnce}
	got, reports := elicitCallConfigured(t, "url: "+formServer(t, "key "+host["MODEL_API_KEY"], schema)+"\n", &approval.Resolver{Provider: p}, configure)
	if got.Action != mcp.ElicitationResponseActionAccept || len(p.forms()) != 1 {
		t.Fatalf("%+v, asked %d times", got, len(p.forms()))
	}
	f := p.forms()[0]
	for _, text := range append(append([]string{approval.CardText(f), f.Preview}, f.Reasons...), reportReasons(reports)...) {
		if strings.Contains(text, "lynx") {
			t.Errorf("a host credential reaches the card or the report: %q", text)
		}
	}
	declined := map[string]any{"type": "object", "properties": map[string]any{host["SOME_TOKEN"]: map[string]any{"type": "object"}}}
	got, reports = elicitCallConfigured(t, "url: "+formServer(t, "m", declined)+"\n", &approval.Resolver{Provider: &recorder{answer: approval.AllowOnce}}, configure)
	if got.Action != mcp.ElicitationResponseActionDecline || len(reports) != 1 || strings.Contains(reports[0].Reason, "lynx") {
		t.Errorf("%+v, reported %+v", got, reports)
	}
}

package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"google.golang.org/protobuf/proto"

	sredact "demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// EventKindSecretBind is the audit event written before a bound secret
// leaves the host: which variable, under which target, for which call —
// never the value.
const EventKindSecretBind = "secret.bind"

// boundAdapter binds a package's declared host variables to each call of
// its declared tools. The value goes into that one call's EffectRequest
// and nowhere else: not the plugin's environment, not the model's view.
// Whatever comes back has exact occurrences of the value replaced.
type boundAdapter struct {
	inner  dispatch.Adapter
	pkg    installed.Locked
	events func() (*runtime.Store, error)
	lookup func(string) (string, bool)
}

// Bind wraps the adapter of the plugin cand with its package's secret
// bindings; a plugin that is not an active package's own binary, or whose
// package binds nothing, is returned as is. events is where each binding
// is recorded before its value is sent.
func Bind(active *installed.Active, cand plugins.Candidate, inner dispatch.Adapter, events func() (*runtime.Store, error)) dispatch.Adapter {
	p, ok := active.Package(cand.Name)
	if !ok || len(p.Secrets) == 0 || !Serves(p, cand) {
		return inner
	}
	return &boundAdapter{inner: inner, pkg: p, events: events, lookup: lookupEnv}
}

// Serves reports whether cand is the package's own plugin: installed, at
// the path install placed it, expected to have the sum the lock recorded
// (which every launch verifies). A name proves nothing: a built-in plugin
// or a binary found first elsewhere may carry the same one, and binding the
// package's secrets to it would hand them to code the operator never
// installed with them.
func Serves(p installed.Locked, cand plugins.Candidate) bool {
	return cand.Origin == plugins.OriginInstalled && cand.Problem == "" &&
		cand.Path == filepath.Join(p.PluginDir, plugins.BinaryPrefix+p.Name) &&
		p.BinarySHA256 != "" && cand.Recorded == p.BinarySHA256
}

func lookupEnv(name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	return v, ok && v != ""
}

// Precheck binds nothing: a check without effects needs no credential.
// It refuses, before anyone is asked to approve the call, a call whose
// secret is not set in the host's environment: it could not work.
func (b *boundAdapter) Precheck(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	for _, s := range b.applicable(inv.Tool) {
		if _, ok := b.lookup(s.Env); !ok {
			return &toolsetv1.ToolResult{IsError: true, ErrorCode: "missing_api_key", Content: fmt.Sprintf(
				"%s is not configured: no %s is set in the host's environment. Retrying will not help; tell the operator to set %s and restart, or continue without it.",
				inv.Tool, s.Env, s.Env)}, nil
		}
	}
	return b.inner.Precheck(ctx, inv)
}

// applicable are the package's secrets bound to calls of tool: only the
// grants recorded at install, for the tools declared with them.
func (b *boundAdapter) applicable(tool string) []installed.Secret {
	var out []installed.Secret
	for _, s := range b.pkg.Secrets {
		if slices.Contains(s.Tools, tool) && slices.Contains(b.pkg.Grants, "secret.bind:"+s.Env) {
			out = append(out, s)
		}
	}
	return out
}

func (b *boundAdapter) Invoke(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	values := map[string]string{}
	var bound, missing []map[string]any
	for _, s := range b.applicable(inv.Tool) {
		meta := map[string]any{"source": "env:" + s.Env, "target": s.Target, "capability": "secret.bind:" + s.Env}
		if v, ok := b.lookup(s.Env); ok {
			values[s.Target] = v
			bound = append(bound, meta)
		} else {
			missing = append(missing, meta)
		}
	}
	if len(bound)+len(missing) > 0 {
		if err := b.record(ctx, inv, bound, missing); err != nil {
			// No audit, no secret: the call does not run.
			return nil, fmt.Errorf("the secret binding of %s could not be recorded, so the call did not run: %w", inv.Tool, err)
		}
	}
	if len(values) > 0 {
		merged := make(map[string]string, len(inv.Secrets)+len(values))
		for k, v := range inv.Secrets {
			merged[k] = v
		}
		for k, v := range values {
			merged[k] = v
		}
		inv.Secrets = merged
	}
	res, err := b.inner.Invoke(ctx, inv)
	if len(values) == 0 {
		return res, err
	}
	if err != nil {
		return nil, errors.New(sredact.RedactString(err.Error(), values))
	}
	return redactResult(res, values), nil
}

// record makes the binding durable in the event log before the value is
// sent: source, target, capability and package, never the value.
func (b *boundAdapter) record(ctx context.Context, inv dispatch.Invocation, bound, missing []map[string]any) error {
	if b.events == nil {
		return errors.New("no event log")
	}
	sink, err := b.events()
	if err != nil {
		return err
	}
	data := map[string]any{
		"package": b.pkg.Name, "version": b.pkg.Version, "invocation": inv.ID,
		"bound": orEmpty(bound), "missing": orEmpty(missing),
	}
	body, err := runtime.MarshalData(data)
	if err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err = sink.Append(actx, runtime.Event{Kind: EventKindSecretBind, Session: inv.Session, Tool: inv.Tool, Data: body})
	return err
}

func orEmpty(l []map[string]any) []any {
	out := make([]any, 0, len(l))
	for _, m := range l {
		out = append(out, m)
	}
	return out
}

// redactResult replaces exact bound values in every text of the result.
// The structured JSON is redacted as text and must still parse, else it is
// dropped rather than passed on half-redacted.
func redactResult(res *toolsetv1.ToolResult, values map[string]string) *toolsetv1.ToolResult {
	if res == nil {
		return nil
	}
	out := proto.CloneOf(res)
	out.Content = sredact.RedactString(res.GetContent(), values)
	out.ModelOutput = sredact.RedactString(res.GetModelOutput(), values)
	out.DisplayOutput = sredact.RedactString(res.GetDisplayOutput(), values)
	if s := res.GetStructured(); len(s) > 0 {
		out.Structured = nil
		escaped := map[string]string{}
		for k, v := range values {
			q, _ := json.Marshal(v)
			escaped[k] = strings.Trim(string(q), `"`)
		}
		r := []byte(sredact.RedactString(sredact.RedactString(string(s), values), escaped))
		if json.Valid(r) {
			out.Structured = r
		}
	}
	return out
}

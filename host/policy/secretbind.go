package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	shared "demiurge.dev/shared/redact"
)

// MaxSecretBindings bounds the bindings of one call.
const MaxSecretBindings = 16

// BindingRequest is one entry of a call's secret_bindings argument, as the
// model wrote it.
type BindingRequest struct {
	Source string
	Target string
	// ExpiresInSeconds is nil when the binding lasts as long as the call.
	ExpiresInSeconds *int64
}

// SecretBinding is a checked binding. Its value is held unexported: it
// leaves the host only in the EffectRequest of the one call it was made
// for, and never appears in a view or an audit record.
type SecretBinding struct {
	Name       string // NAME of env:NAME
	Source     string // env:NAME
	Target     string // the variable the command sees
	Capability string // secret.bind:NAME
	// ExpiresAt is zero when the binding lasts as long as the call.
	ExpiresAt time.Time
	value     string
}

// Value is the bound secret.
func (b SecretBinding) Value() string { return b.value }

// BindingPlan is the checked bindings of one call.
type BindingPlan struct {
	Bindings []SecretBinding
	// Expiry is the earliest ExpiresAt, zero when none expires.
	Expiry time.Time
}

// Secrets maps target to value, as EffectRequest.secrets carries them.
func (p BindingPlan) Secrets() map[string]string {
	if len(p.Bindings) == 0 {
		return nil
	}
	m := make(map[string]string, len(p.Bindings))
	for _, b := range p.Bindings {
		m[b.Target] = b.value
	}
	return m
}

// Remaining is how long the bindings are still good at now: zero when
// nothing expires, an error when one already has.
func (p BindingPlan) Remaining(now time.Time) (time.Duration, error) {
	if p.Expiry.IsZero() {
		return 0, nil
	}
	left := p.Expiry.Sub(now)
	if left <= 0 {
		for _, b := range p.Bindings {
			if !b.ExpiresAt.IsZero() && !b.ExpiresAt.After(now) {
				return 0, fmt.Errorf("secret binding %s expired %s ago, before the command could start; ask again with a longer expires_in_seconds", b.Source, now.Sub(b.ExpiresAt).Round(time.Millisecond))
			}
		}
	}
	return left, nil
}

// Audit is what approval and audit views record of the bindings: source,
// target, capability and expiry, never the value.
func (p BindingPlan) Audit() []map[string]any {
	out := make([]map[string]any, 0, len(p.Bindings))
	for _, b := range p.Bindings {
		m := map[string]any{"source": b.Source, "target": b.Target, "capability": b.Capability}
		if !b.ExpiresAt.IsZero() {
			m["expires_at"] = b.ExpiresAt.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, m)
	}
	return out
}

// ParseBindingRequests reads the secret_bindings argument after schema
// coercion: nil or an array of objects with source, optional target and
// optional expires_in_seconds. Anything else is a model-facing error.
func ParseBindingRequests(raw any) ([]BindingRequest, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("secret_bindings must be an array of {source, target?, expires_in_seconds?}")
	}
	if len(list) > MaxSecretBindings {
		return nil, fmt.Errorf("secret_bindings has %d entries; the most is %d", len(list), MaxSecretBindings)
	}
	out := make([]BindingRequest, 0, len(list))
	for i, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("secret_bindings[%d] must be an object {source, target?, expires_in_seconds?}", i)
		}
		var r BindingRequest
		for k, v := range obj {
			switch k {
			case "source", "target":
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("secret_bindings[%d].%s must be a string", i, k)
				}
				if k == "source" {
					r.Source = s
				} else {
					r.Target = s
				}
			case "expires_in_seconds":
				n, ok := WholeNumber(v)
				if !ok {
					return nil, fmt.Errorf("secret_bindings[%d].expires_in_seconds must be a whole number of seconds", i)
				}
				r.ExpiresInSeconds = &n
			default:
				return nil, fmt.Errorf("secret_bindings[%d] has unknown field %q; use source, target, expires_in_seconds", i, k)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// WholeNumber accepts the integer forms an argument may hold after schema
// coercion (json.Number) or plain decoding.
func WholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

// BindingContext is what a binding is checked against.
type BindingContext struct {
	Capabilities CapabilitySet
	// Lookup reads the host's environment (os.LookupEnv).
	Lookup     func(name string) (string, bool)
	Background bool
	// Timeout is the call's command timeout; no binding may outlive it.
	Timeout time.Duration
	Now     time.Time
}

// ErrBindingNotGranted is wrapped by refusals for a missing capability.
var ErrBindingNotGranted = errors.New("secret binding not granted")

// ResolveBindings checks every request and reads its value. Each needs the
// exact capability secret.bind:NAME (a wildcard never counts); a target
// may not be PATH, HOME or a variable that controls how programs are
// loaded or run; bindings are foreground only; none may outlive the
// call's timeout or be already expired; an unset or empty variable is an
// error. Messages are for the model and never hold a value.
func ResolveBindings(reqs []BindingRequest, bc BindingContext) (BindingPlan, error) {
	var plan BindingPlan
	if len(reqs) == 0 {
		return plan, nil
	}
	if bc.Background {
		return plan, errors.New("secret_bindings are foreground-only; run the command in the foreground, or drop the bindings")
	}
	if bc.Lookup == nil {
		return plan, errors.New("secret bindings: the host has no environment to read secrets from")
	}
	granted := bc.Capabilities.List()
	targets := map[string]bool{}
	for i, r := range reqs {
		name, ok := strings.CutPrefix(r.Source, "env:")
		if !ok || !validEnvName(name) {
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d].source %q must be env:NAME, with NAME an environment variable name", i, r.Source)
		}
		capability := PrefixSecretBind + ":" + name
		if !slices.Contains(granted, capability) { // exact: a wildcard never counts
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d]: %w: this session does not hold %s (the operator grants it by exact name; wildcards are refused)", i, ErrBindingNotGranted, capability)
		}
		target := r.Target
		if target == "" {
			target = name
		}
		switch {
		case !validEnvName(target):
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d].target %q is not a variable name", i, target)
		case SteeringEnvKey(target):
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d].target %s is refused: it controls how programs are found, loaded or run; bind to another name", i, target)
		case targets[target]:
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d].target %s is bound twice", i, target)
		}
		targets[target] = true
		b := SecretBinding{Name: name, Source: "env:" + name, Target: target, Capability: capability}
		if r.ExpiresInSeconds != nil {
			secs := *r.ExpiresInSeconds
			switch {
			case secs <= 0:
				return BindingPlan{}, fmt.Errorf("secret_bindings[%d] (%s) is already expired (expires_in_seconds %d); give a positive number of seconds", i, b.Source, secs)
			case bc.Timeout > 0 && time.Duration(secs)*time.Second > bc.Timeout:
				return BindingPlan{}, fmt.Errorf("secret_bindings[%d] (%s) expires in %ds, after the call's timeout of %s; a binding may not outlive the call", i, b.Source, secs, bc.Timeout)
			}
			b.ExpiresAt = bc.Now.Add(time.Duration(secs) * time.Second)
			if plan.Expiry.IsZero() || b.ExpiresAt.Before(plan.Expiry) {
				plan.Expiry = b.ExpiresAt
			}
		}
		v, ok := bc.Lookup(name)
		switch {
		case !ok:
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d]: %s is not set in the host's environment; ask the operator to set it", i, name)
		case v == "":
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d]: %s is empty in the host's environment", i, name)
		case len(v) < shared.MinSecretLen:
			// Too short to redact: it would show in the output.
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d]: %s is shorter than %d bytes and could not be redacted from the output; it is refused", i, name, shared.MinSecretLen)
		case strings.ContainsRune(v, 0):
			return BindingPlan{}, fmt.Errorf("secret_bindings[%d]: %s contains a NUL byte and cannot be passed", i, name)
		}
		b.value = v
		plan.Bindings = append(plan.Bindings, b)
	}
	return plan, nil
}

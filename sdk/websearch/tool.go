package websearch

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"demiurge.dev/sdk"
)

// Args are the arguments every provider's web_search takes. A provider
// embeds them first in its own parameter struct, so the schema lists them
// first, and adds its own options after.
type Args struct {
	Query     string `json:"query" jsonschema:"minLength=1,maxLength=400" jsonschema_description:"What to search the web for."`
	Count     int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"How many results to return, 1-20 (default 5)."`
	Freshness string `json:"freshness,omitempty" jsonschema:"enum=day,enum=week,enum=month,enum=year" jsonschema_description:"Only results from the past day, week, month or year."`
}

// Freshnesses are the values freshness may take; each provider maps them
// to its own codes.
var Freshnesses = map[string]bool{"day": true, "week": true, "month": true, "year": true}

// Normalise applies defaults and checks what the host's schema check
// already did, so a direct call cannot send nonsense to the provider.
func (a *Args) Normalise() *sdk.Result {
	a.Query = strings.TrimSpace(a.Query)
	switch {
	case a.Query == "":
		return sdk.Errorf("invalid_arguments", "query is empty; say what to search for.")
	case len(a.Query) > 400*4:
		return sdk.Errorf("invalid_arguments", "query is too long; use at most 400 characters.")
	case a.Count < 0 || a.Count > MaxCount:
		return sdk.Errorf("invalid_arguments", "count must be between 1 and %d.", MaxCount)
	case a.Freshness != "" && !Freshnesses[a.Freshness]:
		return sdk.Errorf("invalid_arguments", "freshness must be day, week, month or year.")
	}
	if a.Count == 0 {
		a.Count = DefaultCount
	}
	return nil
}

// Search is one provider's web_search: what the service is called, how
// its arguments are checked, and how one query becomes an HTTP request and
// the answer a result. Everything else (the key, the precheck, the fetch
// and its failures) is the same for every provider.
type Search[P any] struct {
	Provider
	API
	// Doc is the tool's description, as the model reads it.
	Doc string
	// CallTimeout bounds one search, connection included, unless
	// API.Timeout says otherwise.
	CallTimeout time.Duration
	// Normalise applies the provider's defaults and refuses what it would
	// refuse; it calls Args.Normalise first.
	Normalise func(P) (P, *sdk.Result)
	// Request builds the HTTP request of one normalised query to
	// endpoint; key is the one the host bound for this call.
	Request func(ctx context.Context, endpoint string, params P, key string) (*http.Request, error)
	// Parse turns the provider's answer, whatever its status, into the
	// model's result (Classify for an error status, Render for results).
	Parse func(resp *Response, params P, key string) *sdk.Result
}

// Tool is the web_search tool of s.
func (s Search[P]) Tool() sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name:        "web_search",
		Description: s.Doc,
		// Network: the query leaves the machine. The host's floor for a
		// package tool (medium, prompt) applies; the plugin claims no less.
		Metadata: sdk.Metadata{Risk: "medium", Capability: "network.fetch", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:   sdk.EffectNetwork,
	}, func(_ *sdk.Context, params P) (*sdk.Result, error) {
		// The precheck refuses, before anyone is asked to approve the
		// search, the arguments the provider would refuse. (The host checks
		// before approval that the key is set: this process never sees
		// whether it is.)
		_, bad := s.Normalise(params)
		return bad, nil
	}, func(ctx *sdk.Context, params P) (*sdk.Result, error) {
		params, bad := s.Normalise(params)
		if bad != nil {
			return bad, nil
		}
		key := ctx.Secrets[s.SecretTarget]
		if key == "" {
			return s.missingKey(), nil
		}
		return s.search(ctx, params, key), nil
	})
}

// At is s's tool searching the API a.
func (s Search[P]) At(a API) sdk.Tool {
	s.API = a
	return s.Tool()
}

// Toolset is a provider package's toolset: its one web_search, at
// defaultEndpoint under the production URL policy (see Endpoint).
func (s Search[P]) Toolset(name, version, defaultEndpoint string) sdk.Toolset {
	return sdk.Toolset{Name: name, Version: version, Tools: func() []sdk.Tool {
		return []sdk.Tool{s.At(NewAPI(Endpoint(name, defaultEndpoint)))}
	}}
}

// search runs one query. Every failure is a soft failure result.
func (s Search[P]) search(ctx context.Context, params P, key string) *sdk.Result {
	resp, fail := s.Fetch(ctx, s.Client, cmp.Or(s.Timeout, s.CallTimeout), func(ctx context.Context) (*http.Request, error) {
		return s.Request(ctx, s.Endpoint, params, key)
	})
	if fail != nil {
		return fail
	}
	return s.Parse(resp, params, key)
}

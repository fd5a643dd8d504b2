package websearch

import (
	"context"
	"strings"

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

// Define makes the web_search tool of a provider. normalise applies the
// provider's defaults and refuses what it would refuse (calling
// Args.Normalise first); search runs one normalised query with the key the
// host bound for this call.
func Define[P any](p Provider, doc string, normalise func(P) (P, *sdk.Result), search func(ctx context.Context, params P, key string) *sdk.Result) sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name:        "web_search",
		Description: doc,
		// Network: the query leaves the machine. The host's floor for a
		// package tool (medium, prompt) applies; the plugin claims no less.
		Metadata: sdk.Metadata{Risk: "medium", Capability: "network.fetch", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:   sdk.EffectNetwork,
	}, func(_ *sdk.Context, params P) (*sdk.Result, error) {
		// The precheck refuses, before anyone is asked to approve the
		// search, the arguments the provider would refuse. (The host checks
		// before approval that the key is set: this process never sees
		// whether it is.)
		_, bad := normalise(params)
		return bad, nil
	}, func(ctx *sdk.Context, params P) (*sdk.Result, error) {
		params, bad := normalise(params)
		if bad != nil {
			return bad, nil
		}
		key := ctx.Secrets[p.SecretTarget]
		if key == "" {
			return p.missingKey(), nil
		}
		return search(ctx, params, key), nil
	})
}

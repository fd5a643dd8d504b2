package main

import (
	_ "embed"
	"strings"

	"demiurge.dev/sdk"
)

//go:embed web_search.md
var webSearchDoc string

// searchParams is the model-facing schema: the options common to web
// search providers, plus Brave's country, language and safe-search.
type searchParams struct {
	Query      string `json:"query" jsonschema:"minLength=1,maxLength=400" jsonschema_description:"What to search the web for."`
	Count      int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"How many results to return, 1-20 (default 5)."`
	Freshness  string `json:"freshness,omitempty" jsonschema:"enum=day,enum=week,enum=month,enum=year" jsonschema_description:"Only results from the past day, week, month or year."`
	Country    string `json:"country,omitempty" jsonschema:"pattern=^[A-Za-z]{2}$" jsonschema_description:"Two-letter country code to search from, e.g. US or DE."`
	SearchLang string `json:"search_lang,omitempty" jsonschema:"pattern=^[A-Za-z]{2}(-[A-Za-z]{2\\,4})?$" jsonschema_description:"Language of the results, e.g. en, de or zh-hans."`
	SafeSearch string `json:"safesearch,omitempty" jsonschema:"enum=off,enum=moderate,enum=strict" jsonschema_description:"Adult content filter (default moderate)."`
}

func newWebSearch(a braveAPI) sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name:        "web_search",
		Description: webSearchDoc,
		// Network: the query leaves the machine. The host's floor for a
		// package tool (medium, prompt) applies; the plugin claims no less.
		Metadata: sdk.Metadata{Risk: "medium", Capability: "network.fetch", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:   sdk.EffectNetwork,
	}, precheck, func(ctx *sdk.Context, p searchParams) (*sdk.Result, error) {
		p, bad := normalise(p)
		if bad != nil {
			return bad, nil
		}
		key := ctx.Secrets[secretTarget]
		if key == "" {
			return missingKey(), nil
		}
		return a.search(ctx, p, key), nil
	})
}

// precheck refuses, before anyone is asked to approve the search, the
// arguments the provider would refuse. (The host checks before approval
// that the key is set: this process never sees whether it is.)
func precheck(_ *sdk.Context, p searchParams) (*sdk.Result, error) {
	_, bad := normalise(p)
	return bad, nil
}

// normalise applies defaults and checks what the host's schema check
// already did, so a direct call cannot send nonsense to the provider.
func normalise(p searchParams) (searchParams, *sdk.Result) {
	p.Query = strings.TrimSpace(p.Query)
	switch {
	case p.Query == "":
		return p, sdk.Errorf("invalid_arguments", "query is empty; say what to search for.")
	case len(p.Query) > 400*4:
		return p, sdk.Errorf("invalid_arguments", "query is too long; use at most 400 characters.")
	case p.Count < 0 || p.Count > maxCount:
		return p, sdk.Errorf("invalid_arguments", "count must be between 1 and %d.", maxCount)
	case p.Freshness != "" && freshness[p.Freshness] == "":
		return p, sdk.Errorf("invalid_arguments", "freshness must be day, week, month or year.")
	}
	if p.Count == 0 {
		p.Count = defaultCount
	}
	p.Country = strings.ToUpper(p.Country)
	return p, nil
}

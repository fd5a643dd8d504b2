package main

import (
	_ "embed"
	"strings"

	"demiurge.dev/sdk"
)

//go:embed web_search.md
var webSearchDoc string

// searchParams is the model-facing schema: the options common to web
// search providers, plus Tavily's depth, topic and domain filters.
type searchParams struct {
	Query          string   `json:"query" jsonschema:"minLength=1,maxLength=400" jsonschema_description:"What to search the web for."`
	Count          int      `json:"count,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"How many results to return, 1-20 (default 5)."`
	Freshness      string   `json:"freshness,omitempty" jsonschema:"enum=day,enum=week,enum=month,enum=year" jsonschema_description:"Only results from the past day, week, month or year."`
	SearchDepth    string   `json:"search_depth,omitempty" jsonschema:"enum=basic,enum=advanced" jsonschema_description:"basic (default) is fast; advanced finds more relevant snippets and costs more."`
	Topic          string   `json:"topic,omitempty" jsonschema:"enum=general,enum=news,enum=finance" jsonschema_description:"Search category (default general)."`
	IncludeDomains []string `json:"include_domains,omitempty" jsonschema:"maxItems=20" jsonschema_description:"Only results from these domains, e.g. go.dev."`
	ExcludeDomains []string `json:"exclude_domains,omitempty" jsonschema:"maxItems=20" jsonschema_description:"No results from these domains."`
}

func newWebSearch(a tavilyAPI) sdk.Tool {
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
	case p.Freshness != "" && !timeRanges[p.Freshness]:
		return p, sdk.Errorf("invalid_arguments", "freshness must be day, week, month or year.")
	case p.SearchDepth != "" && p.SearchDepth != "basic" && p.SearchDepth != "advanced":
		return p, sdk.Errorf("invalid_arguments", "search_depth must be basic or advanced.")
	case p.Topic != "" && p.Topic != "general" && p.Topic != "news" && p.Topic != "finance":
		return p, sdk.Errorf("invalid_arguments", "topic must be general, news or finance.")
	case len(p.IncludeDomains) > 20 || len(p.ExcludeDomains) > 20:
		return p, sdk.Errorf("invalid_arguments", "give at most 20 domains to include or exclude.")
	}
	for _, d := range append(append([]string(nil), p.IncludeDomains...), p.ExcludeDomains...) {
		if d == "" || len(d) > 253 || strings.ContainsAny(d, " /\t\n?#@") {
			return p, sdk.Errorf("invalid_arguments", "%q is not a domain; give bare domains like go.dev.", d)
		}
	}
	if p.Count == 0 {
		p.Count = defaultCount
	}
	return p, nil
}

package main

import (
	_ "embed"
	"strings"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
)

//go:embed web_search.md
var webSearchDoc string

// searchParams is the model-facing schema: the options common to web
// search providers, plus Tavily's depth, topic and domain filters.
type searchParams struct {
	websearch.Args
	SearchDepth    string   `json:"search_depth,omitempty" jsonschema:"enum=basic,enum=advanced" jsonschema_description:"basic (default) is fast; advanced finds more relevant snippets and costs more."`
	Topic          string   `json:"topic,omitempty" jsonschema:"enum=general,enum=news,enum=finance" jsonschema_description:"Search category (default general)."`
	IncludeDomains []string `json:"include_domains,omitempty" jsonschema:"maxItems=20" jsonschema_description:"Only results from these domains, e.g. go.dev."`
	ExcludeDomains []string `json:"exclude_domains,omitempty" jsonschema:"maxItems=20" jsonschema_description:"No results from these domains."`
}

// toolset serves web_search at Tavily's production API.
var toolset = search.Toolset(Name, Version, defaultEndpoint)

// search is Tavily's web_search; At says which API it searches.
var search = websearch.Search[searchParams]{
	Provider: provider, Doc: webSearchDoc, CallTimeout: callTimeout,
	Normalise: normalise, Request: request, Parse: parseResponse,
}

// normalise checks Tavily's options after the common ones, so a direct
// call cannot send nonsense to Tavily.
func normalise(p searchParams) (searchParams, *sdk.Result) {
	if bad := p.Args.Normalise(); bad != nil {
		return p, bad
	}
	switch {
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
	return p, nil
}

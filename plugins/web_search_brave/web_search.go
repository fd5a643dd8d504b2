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
// search providers, plus Brave's country, language and safe-search.
type searchParams struct {
	websearch.Args
	Country    string `json:"country,omitempty" jsonschema:"pattern=^[A-Za-z]{2}$" jsonschema_description:"Two-letter country code to search from, e.g. US or DE."`
	SearchLang string `json:"search_lang,omitempty" jsonschema:"pattern=^[A-Za-z]{2}(-[A-Za-z]{2\\,4})?$" jsonschema_description:"Language of the results, e.g. en, de or zh-hans."`
	SafeSearch string `json:"safesearch,omitempty" jsonschema:"enum=off,enum=moderate,enum=strict" jsonschema_description:"Adult content filter (default moderate)."`
}

// toolset serves web_search at Brave's production API.
var toolset = search.Toolset(Name, Version, defaultEndpoint)

// search is Brave's web_search; At says which API it searches.
var search = websearch.Search[searchParams]{
	Provider: provider, Doc: webSearchDoc, CallTimeout: callTimeout,
	Normalise: normalise, Request: request, Parse: parseResponse,
}

// normalise adds Brave's defaults to the common ones; Brave takes its
// country codes in upper case.
func normalise(p searchParams) (searchParams, *sdk.Result) {
	if bad := p.Args.Normalise(); bad != nil {
		return p, bad
	}
	p.Country = strings.ToUpper(p.Country)
	return p, nil
}

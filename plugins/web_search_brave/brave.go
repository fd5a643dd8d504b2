package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
)

// Name is the toolset and package name, Version its semver;
// package.json must say the same.
const (
	Name    = "web_search_brave"
	Version = "0.1.0"
)

const (
	defaultEndpoint = "https://api.search.brave.com/res/v1/web/search"
	// secretTarget is the name the host binds the key under, and the host
	// variable it comes from (package.json declares it).
	secretTarget = "BRAVE_API_KEY"
	// maxWords is Brave's limit on the words of a query; a longer query is
	// cut rather than refused, so that the limit of one provider does not
	// leave the turn without results.
	maxWords = 50
	// callTimeout bounds one search, connection included.
	callTimeout = 20 * time.Second
)

var provider = websearch.Provider{Title: "Brave Search", SecretTarget: secretTarget}

// braveResponse is the part of Brave's WebSearchApiResponse used here.
type braveResponse struct {
	Type  string `json:"type"`
	Query struct {
		Original             string `json:"original"`
		MoreResultsAvailable bool   `json:"more_results_available"`
	} `json:"query"`
	Web *struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
		} `json:"results"`
	} `json:"web"`
}

// braveError is Brave's error body: {"type":"ErrorResponse","error":{...}}.
type braveError struct {
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Status int    `json:"status"`
	} `json:"error"`
}

// freshness maps the common freshness values to Brave's codes.
var freshness = map[string]string{"day": "pd", "week": "pw", "month": "pm", "year": "py"}

// fitQuery cuts a query to Brave's word limit and says so.
func fitQuery(q string) (string, string) {
	words := strings.Fields(q)
	if len(words) <= maxWords {
		return q, ""
	}
	return strings.Join(words[:maxWords], " "), fmt.Sprintf("the query was cut to its first %d words, Brave's limit", maxWords)
}

// request speaks the Brave web search API: GET with the query in the URL
// and the key in X-Subscription-Token.
func request(ctx context.Context, endpoint string, p searchParams, key string) (*http.Request, error) {
	q := url.Values{}
	query, _ := fitQuery(p.Query)
	q.Set("q", query)
	q.Set("count", strconv.Itoa(p.Count))
	if f := freshness[p.Freshness]; f != "" {
		q.Set("freshness", f)
	}
	if p.Country != "" {
		q.Set("country", p.Country)
	}
	if p.SearchLang != "" {
		q.Set("search_lang", p.SearchLang)
	}
	if p.SafeSearch != "" {
		q.Set("safesearch", p.SafeSearch)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", key)
	req.Header.Set("User-Agent", "demiurge-web_search_brave/"+Version)
	return req, nil
}

// parseResponse turns Brave's answer into the model's result.
func parseResponse(resp *websearch.Response, p searchParams, key string) *sdk.Result {
	if resp.Status != http.StatusOK {
		var e braveError
		_ = json.Unmarshal(resp.Body, &e)
		detail := provider.Detail(e.Error.Detail, key)
		// Brave reports a bad key as 422 SUBSCRIPTION_TOKEN_INVALID.
		if e.Error.Code == "SUBSCRIPTION_TOKEN_INVALID" {
			return provider.Unauthorized(resp.Status, detail)
		}
		return provider.Classify(resp.Status, resp.Header, detail)
	}
	var r braveResponse
	if err := json.Unmarshal(resp.Body, &r); err != nil {
		return provider.BadResponse("it is not the JSON of a web search")
	}
	out := &websearch.Result{Provider: "brave", Query: p.Query, Results: []websearch.Hit{}, MoreAvailable: r.Query.MoreResultsAvailable}
	_, out.Note = fitQuery(p.Query)
	if r.Web != nil {
		for _, w := range r.Web.Results {
			if len(out.Results) == p.Count {
				break
			}
			out.Add(w.Title, w.URL, w.Description, w.Age, 0)
		}
	}
	return provider.Render(out)
}

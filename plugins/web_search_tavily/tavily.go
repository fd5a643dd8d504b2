package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
)

// Name is the toolset and package name, Version its semver;
// package.json must say the same.
const (
	Name    = "web_search_tavily"
	Version = "0.1.0"
)

const (
	defaultEndpoint = "https://api.tavily.com/search"
	// secretTarget is the name the host binds the key under, and the host
	// variable it comes from (package.json declares it).
	secretTarget = "TAVILY_API_KEY"
	// callTimeout bounds one search; advanced depth takes a few seconds.
	callTimeout = 30 * time.Second
)

var provider = websearch.Provider{Title: "Tavily", SecretTarget: secretTarget}

// tavilyRequest is the documented request body; only what is used.
type tavilyRequest struct {
	Query             string   `json:"query"`
	SearchDepth       string   `json:"search_depth,omitempty"`
	Topic             string   `json:"topic,omitempty"`
	MaxResults        int      `json:"max_results"`
	TimeRange         string   `json:"time_range,omitempty"`
	IncludeDomains    []string `json:"include_domains,omitempty"`
	ExcludeDomains    []string `json:"exclude_domains,omitempty"`
	IncludeAnswer     bool     `json:"include_answer"`
	IncludeRawContent bool     `json:"include_raw_content"`
	IncludeImages     bool     `json:"include_images"`
}

// tavilyResponse is the part of Tavily's response used here.
type tavilyResponse struct {
	Query   string `json:"query"`
	Results []struct {
		Title         string  `json:"title"`
		URL           string  `json:"url"`
		Content       string  `json:"content"`
		Score         float64 `json:"score"`
		PublishedDate string  `json:"published_date"`
	} `json:"results"`
}

// tavilyError is Tavily's error body: {"detail":{"error":"..."}}.
type tavilyError struct {
	Detail struct {
		Error string `json:"error"`
	} `json:"detail"`
}

// request speaks the Tavily search API: POST a JSON body, the key as a
// bearer token.
func request(ctx context.Context, endpoint string, p searchParams, key string) (*http.Request, error) {
	body, err := json.Marshal(tavilyRequest{
		Query: p.Query, SearchDepth: p.SearchDepth, Topic: p.Topic, MaxResults: p.Count,
		TimeRange: p.Freshness, IncludeDomains: p.IncludeDomains, ExcludeDomains: p.ExcludeDomains,
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", "demiurge-web_search_tavily/"+Version)
	return req, nil
}

// parseResponse turns Tavily's answer into the model's result.
func parseResponse(resp *websearch.Response, p searchParams, key string) *sdk.Result {
	if resp.Status != http.StatusOK {
		var e tavilyError
		_ = json.Unmarshal(resp.Body, &e)
		detail := provider.Detail(e.Detail.Error, key)
		// 432 and 433 are Tavily's plan and pay-as-you-go limits.
		if resp.Status == 432 || resp.Status == 433 {
			return provider.RateLimited(resp.Header.Get("Retry-After"))
		}
		return provider.Classify(resp.Status, resp.Header, detail)
	}
	var r tavilyResponse
	if err := json.Unmarshal(resp.Body, &r); err != nil {
		return provider.BadResponse("it is not the JSON of a search")
	}
	out := &websearch.Result{Provider: "tavily", Query: p.Query, Results: []websearch.Hit{}}
	for _, w := range r.Results {
		if len(out.Results) == p.Count {
			break
		}
		out.Add(w.Title, w.URL, w.Content, w.PublishedDate, w.Score)
	}
	return provider.Render(out)
}

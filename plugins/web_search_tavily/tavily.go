package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/netpolicy"
)

const (
	defaultEndpoint = "https://api.tavily.com/search"
	// secretTarget is the name the host binds the key under, and the host
	// variable it comes from (package.json declares it).
	secretTarget  = "TAVILY_API_KEY"
	providerTitle = "Tavily"
	// maxBody bounds a response read into memory: 20 results without raw
	// content are far below it.
	maxBody = 2 << 20
	// callTimeout bounds one search; advanced depth takes a few seconds.
	callTimeout = 30 * time.Second
)

// tavilyAPI speaks the Tavily search API: POST a JSON body, the key as a
// bearer token.
type tavilyAPI struct {
	endpoint string
	client   *http.Client
	timeout  time.Duration // 0: callTimeout
}

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

var timeRanges = map[string]bool{"day": true, "week": true, "month": true, "year": true}

func (a tavilyAPI) request(ctx context.Context, p searchParams, key string) (*http.Request, error) {
	body, err := json.Marshal(tavilyRequest{
		Query: p.Query, SearchDepth: p.SearchDepth, Topic: p.Topic, MaxResults: p.Count,
		TimeRange: p.Freshness, IncludeDomains: p.IncludeDomains, ExcludeDomains: p.ExcludeDomains,
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", "demiurge-web_search_tavily/"+Version)
	return req, nil
}

// search runs one query. Every failure is a soft failure result.
func (a tavilyAPI) search(ctx context.Context, p searchParams, key string) *sdk.Result {
	timeout := a.timeout
	if timeout == 0 {
		timeout = callTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := a.request(ctx, p, key)
	if err != nil {
		return badResponse("the request could not be built")
	}
	resp, err := a.client.Do(req)
	if errors.Is(err, errNoRedirects) {
		return badResponse("it redirected elsewhere, and the key is never sent after a redirect")
	}
	if err != nil {
		return transportFailure(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return transportFailure(ctx, err)
	}
	if len(body) > maxBody {
		return badResponse("it is larger than 2 MiB")
	}
	return parseResponse(resp.StatusCode, resp.Header, body, p, key)
}

// parseResponse turns Tavily's answer into the model's result.
func parseResponse(status int, header http.Header, body []byte, p searchParams, key string) *sdk.Result {
	if status != http.StatusOK {
		var e tavilyError
		_ = json.Unmarshal(body, &e)
		detail := providerDetail(e.Detail.Error, key)
		// 432 and 433 are Tavily's plan and pay-as-you-go limits.
		if status == 432 || status == 433 {
			return rateLimited(header.Get("Retry-After"))
		}
		return classify(status, header, detail)
	}
	var r tavilyResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return badResponse("it is not the JSON of a search")
	}
	out := &searchResult{Provider: "tavily", Query: p.Query, Results: []hit{}}
	for _, w := range r.Results {
		if len(out.Results) == p.Count {
			break
		}
		h, ok := makeHit(len(out.Results)+1, w.Title, w.URL, w.Content, w.PublishedDate, w.Score)
		if !ok {
			out.Omitted++
			continue
		}
		out.Results = append(out.Results, h)
	}
	out.Returned = len(out.Results)
	return render(out, providerTitle)
}

// newHTTPClient goes through the host's URL policy (shared/netpolicy):
// the API's name is resolved and every address checked (private, loopback,
// metadata and mixed answers refused), the connection is pinned to the
// verified address with Host and SNI kept, and no ambient proxy is used
// (a proxy would see the key). It follows no redirect: net/http would
// carry the key's header along.
func newHTTPClient(opts netpolicy.Options) *http.Client {
	opts.MaxRedirects = -1
	return &http.Client{
		Transport:     netpolicy.New(opts).Transport(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return errNoRedirects },
	}
}

var errNoRedirects = errors.New("the search API redirected; redirects are not followed")

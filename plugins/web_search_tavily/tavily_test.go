package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
	"demiurge.dev/sdk/websearch/websearchtest"
	"demiurge.dev/shared/netpolicy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "tvly-test-0123456789abcdef"

// tavilyServer speaks the Tavily search API as documented: POST /search
// with a JSON body, the key as "Authorization: Bearer tvly-...", results
// as {"query","answer","images","results":[{title,url,content,score}],
// "response_time"}. It refuses anything else the way Tavily does, and
// records the body it received.
type tavilyServer struct {
	*httptest.Server
	bodies chan map[string]any
}

func newTavilyServer(t *testing.T, answer http.HandlerFunc) *tavilyServer {
	t.Helper()
	s := &tavilyServer{bodies: make(chan map[string]any, 4)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		err := json.Unmarshal(raw, &body)
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/search":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not Found"}`)
		case r.Header.Get("Authorization") != "Bearer "+testKey:
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`)
		case err != nil || r.Header.Get("Content-Type") != "application/json" || body["query"] == "":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"detail":{"error":"Invalid request body."}}`)
		default:
			s.bodies <- body
			answer(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *tavilyServer) api() websearch.API {
	return websearch.API{Endpoint: s.URL + "/search", Client: websearch.NewHTTPClient(websearchtest.Loopback), Timeout: 2 * time.Second}
}

func documentedResponse(n int) string {
	var results []string
	for i := 1; i <= n; i++ {
		results = append(results, fmt.Sprintf(`{"title":"Result %d","url":"https://example.org/%d","content":"Go generics, snippet %d.","score":0.%d,"raw_content":null,"favicon":"https://example.org/favicon.ico"}`, i, i, i, 9-i))
	}
	return `{"query":"golang generics","follow_up_questions":null,"answer":null,"images":[],"results":[` + strings.Join(results, ",") + `],"response_time":"1.67","request_id":"123e4567-e89b-12d3-a456-426614174111"}`
}

func call(t *testing.T, a websearch.API, args string, key string) *sdk.Result {
	t.Helper()
	return websearchtest.Call(t, search.At(a), args, secretTarget, key, testKey)
}

func TestSearchSpeaksTheTavilyAPI(t *testing.T) {
	srv := newTavilyServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, documentedResponse(3)) })
	res := call(t, srv.api(), `{"query":"golang generics","count":3,"freshness":"month","search_depth":"advanced","topic":"news","include_domains":["go.dev"],"exclude_domains":["example.com"]}`, testKey)
	if res.IsError {
		t.Fatalf("search failed: %s", res.Content)
	}
	body := <-srv.bodies
	want := map[string]any{
		"query": "golang generics", "max_results": 3.0, "time_range": "month", "search_depth": "advanced", "topic": "news",
		"include_domains": []any{"go.dev"}, "exclude_domains": []any{"example.com"},
		"include_answer": false, "include_raw_content": false, "include_images": false,
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("request body = %v\nwant %v", body, want)
	}
	if _, ok := body["api_key"]; ok {
		t.Errorf("the key travelled in the body")
	}
	for _, want := range []string{"1. Result 1\n   https://example.org/1\n   Go generics, snippet 1.", "3. Result 3", websearch.UntrustedNote} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, res.Content)
		}
	}
	sr := res.Structured.(*websearch.Result)
	if sr.Returned != 3 || sr.Results[0].Score != 0.8 || sr.Provider != "tavily" {
		t.Errorf("structured = %+v", sr)
	}
}

func TestSoftFailures(t *testing.T) {
	cases := []websearchtest.SoftFailure{
		{Name: "wrong key", Key: "tvly-wrong", Answer: nil, Code: "unauthorized", Contains: "HTTP 401: Unauthorized: missing or invalid API key."},
		{Name: "no key bound", Key: "", Answer: nil, Code: "missing_api_key", Contains: "no TAVILY_API_KEY is set"},
		{Name: "rate limited", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"detail":{"error":"Rate limit exceeded"}}`)
		}, Code: "rate_limited", Contains: "Retry after 30 seconds"},
		{Name: "plan limit", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(432)
			fmt.Fprint(w, `{"detail":{"error":"This request exceeds your plan's set usage limit."}}`)
		}, Code: "rate_limited", Contains: "quota"},
		{Name: "server error", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"detail":{"error":"Internal Server Error"}}`)
		}, Code: "provider_unavailable", Contains: "HTTP 500"},
		{Name: "bad request echoing the key", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"detail":{"error":"key %s: query too long"}}`, testKey)
		}, Code: "invalid_request", Contains: "key [redacted:TAVILY_API_KEY]: query too long"},
		{Name: "not JSON", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, Code: "bad_response", Contains: "could not be read"},
		{Name: "redirect", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, Code: "bad_response", Contains: "never sent after a redirect"},
		{Name: "timeout", Key: testKey, Answer: websearchtest.Hang, Code: "timeout", Contains: "did not answer in time"},
	}
	websearchtest.CheckSoftFailures(t, cases, func(t *testing.T, answer http.HandlerFunc) sdk.Tool {
		a := newTavilyServer(t, answer).api()
		a.Timeout = 300 * time.Millisecond
		return search.At(a)
	}, secretTarget, testKey)
}

func TestInvalidArguments(t *testing.T) {
	a := websearch.API{Endpoint: "http://127.0.0.1:1", Client: websearch.NewHTTPClient(websearchtest.Loopback)}
	for _, args := range []string{`{"query":""}`, `{"query":"x","count":99}`, `{"query":"x","topic":"sports"}`, `{"query":"x","search_depth":"deep"}`, `{"query":"x","include_domains":["https://go.dev/x"]}`, `{"query":"x","freshness":"hour"}`} {
		if res := call(t, a, args, testKey); res.ErrorCode != "invalid_arguments" {
			t.Errorf("%s: got %q %s", args, res.ErrorCode, res.Content)
		}
	}
}

func TestResultsAreBounded(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 200)
	var results []string
	for i := range 30 {
		results = append(results, fmt.Sprintf(`{"title":%q,"url":"https://example.org/%d","content":%q,"score":0.5}`, long, i, long))
	}
	res := parseResponse(&websearch.Response{Status: 200, Body: []byte(`{"results":[` + strings.Join(results, ",") + `]}`)}, searchParams{Args: websearch.Args{Query: "q", Count: 20}}, testKey)
	sr := res.Structured.(*websearch.Result)
	if len(res.Content) > websearch.MaxContent+200 || sr.Returned+sr.Omitted != 20 || sr.Returned == 0 {
		t.Fatalf("content %d bytes, returned %d omitted %d", len(res.Content), sr.Returned, sr.Omitted)
	}
}

func TestManifestMatchesTheToolset(t *testing.T) {
	websearchtest.CheckManifest(t, toolset, secretTarget)
}

func FuzzParseResponse(f *testing.F) {
	f.Add(200, []byte(documentedResponse(2)))
	f.Add(401, []byte(`{"detail":{"error":"Unauthorized"}}`))
	f.Add(200, []byte(`{"results":[{"url":"https://a","title":"<b","content":"&amp;"}]}`))
	f.Add(432, []byte(`[]`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res := parseResponse(&websearch.Response{Status: status, Body: body}, searchParams{Args: websearch.Args{Query: "q", Count: 20}}, testKey)
		websearchtest.CheckParsed(t, status, res)
	})
}

// TestURLPolicyIsInThePath: under the production policy an endpoint on
// loopback is refused, never contacted.
func TestURLPolicyIsInThePath(t *testing.T) {
	websearchtest.CheckURLPolicy(t, func(endpoint string) sdk.Tool {
		return search.At(websearch.NewAPI(endpoint, netpolicy.Options{}))
	}, "/search", secretTarget, testKey)
}

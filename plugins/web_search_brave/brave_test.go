package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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

const testKey = "BSA-test-key-0123456789abcdef"

// braveServer speaks the Brave web search API as documented: GET
// /res/v1/web/search with q, count and the optional filters in the query,
// the key in X-Subscription-Token, a WebSearchApiResponse in JSON. It
// refuses anything else the way Brave does, and records what it saw.
type braveServer struct {
	*httptest.Server
	seen   chan *http.Request
	answer func(w http.ResponseWriter, r *http.Request)
}

func newBraveServer(t *testing.T, answer http.HandlerFunc) *braveServer {
	t.Helper()
	s := &braveServer{seen: make(chan *http.Request, 4), answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.seen <- r.Clone(context.Background())
		switch {
		case r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search":
			http.Error(w, "not found", http.StatusNotFound)
		case r.Header.Get("X-Subscription-Token") != testKey:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"type":"ErrorResponse","error":{"id":"e1","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","meta":{}},"time":1700000000}`)
		case r.URL.Query().Get("q") == "":
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)"}}`)
		default:
			s.answer(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *braveServer) api() websearch.API {
	return websearch.API{Endpoint: s.URL + "/res/v1/web/search", Client: websearch.NewHTTPClient(websearchtest.Loopback), Timeout: 2 * time.Second}
}

// documentedResponse is shaped like Brave's WebSearchApiResponse.
func documentedResponse(n int) string {
	var results []string
	for i := 1; i <= n; i++ {
		results = append(results, fmt.Sprintf(`{"type":"search_result","subtype":"generic","title":"Result &amp; <strong>%d</strong>","url":"https://example.org/%d","description":"The <strong>Go</strong> programming language, entry %d.","age":"2 days ago","language":"en","family_friendly":true,"profile":{"name":"Example"},"meta_url":{"scheme":"https","netloc":"example.org","hostname":"example.org"}}`, i, i, i))
	}
	return `{"type":"search","query":{"original":"golang","show_strict_warning":false,"is_navigational":false,"more_results_available":true},"mixed":{"type":"mixed","main":[]},"web":{"type":"search","results":[` + strings.Join(results, ",") + `],"family_friendly":true}}`
}

func call(t *testing.T, a websearch.API, args string, key string) *sdk.Result {
	t.Helper()
	return websearchtest.Call(t, search.At(a), args, secretTarget, key, testKey)
}

func TestSearchSpeaksTheBraveAPI(t *testing.T) {
	srv := newBraveServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, documentedResponse(3))
	})
	res := call(t, srv.api(), `{"query":"golang generics","count":3,"freshness":"week","country":"de","search_lang":"en","safesearch":"strict"}`, testKey)
	if res.IsError {
		t.Fatalf("search failed: %s", res.Content)
	}
	r := <-srv.seen
	q := r.URL.Query()
	for k, want := range map[string]string{"q": "golang generics", "count": "3", "freshness": "pw", "country": "DE", "search_lang": "en", "safesearch": "strict"} {
		if got := q.Get(k); got != want {
			t.Errorf("query %s = %q, want %q", k, got, want)
		}
	}
	if r.Header.Get("Accept") != "application/json" {
		t.Errorf("Accept = %q", r.Header.Get("Accept"))
	}
	if strings.Contains(r.URL.RawQuery, testKey) {
		t.Errorf("the key travelled in the URL: %s", r.URL.RawQuery)
	}
	for _, want := range []string{"1. Result & 1\n   https://example.org/1\n   (2 days ago)\n   The Go programming language, entry 1.", "3. Result & 3", websearch.UntrustedNote, "more results exist"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, res.Content)
		}
	}
	sr := res.Structured.(*websearch.Result)
	if sr.Returned != 3 || sr.Results[2].URL != "https://example.org/3" || sr.Provider != "brave" {
		t.Errorf("structured = %+v", sr)
	}
}

func TestSoftFailures(t *testing.T) {
	cases := []websearchtest.SoftFailure{
		{Name: "wrong key", Key: "BSA-wrong", Answer: nil, Code: "unauthorized", Contains: "tell the operator to check BRAVE_API_KEY"},
		{Name: "no key bound", Key: "", Answer: nil, Code: "missing_api_key", Contains: "no BRAVE_API_KEY is set"},
		{Name: "rate limited", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"type":"ErrorResponse","error":{"status":429,"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan."}}`)
		}, Code: "rate_limited", Contains: "Retry after 7 seconds"},
		{Name: "server error", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}, Code: "provider_unavailable", Contains: "HTTP 502"},
		{Name: "unauthorized status", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"detail":"token %s revoked"}}`, testKey)
		}, Code: "unauthorized", Contains: "token [redacted:BRAVE_API_KEY] revoked"},
		{Name: "not JSON", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<html>maintenance</html>")
		}, Code: "bad_response", Contains: "could not be read"},
		{Name: "too large", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"web":{"results":[` + strings.Repeat(" ", websearch.MaxBody) + `]}}`))
		}, Code: "bad_response", Contains: "larger than 2 MiB"},
		{Name: "redirect", Key: testKey, Answer: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/steal", http.StatusFound)
		}, Code: "bad_response", Contains: "never sent after a redirect"},
		{Name: "timeout", Key: testKey, Answer: websearchtest.Hang, Code: "timeout", Contains: "did not answer in time"},
	}
	websearchtest.CheckSoftFailures(t, cases, func(t *testing.T, answer http.HandlerFunc) sdk.Tool {
		a := newBraveServer(t, answer).api()
		a.Timeout = 300 * time.Millisecond
		return search.At(a)
	}, secretTarget, testKey)
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res := call(t, websearch.API{Endpoint: url, Client: websearch.NewHTTPClient(websearchtest.Loopback), Timeout: time.Second}, `{"query":"x"}`, testKey)
	if res.ErrorCode != "unreachable" {
		t.Fatalf("got %q: %s", res.ErrorCode, res.Content)
	}
}

func TestInvalidArguments(t *testing.T) {
	a := websearch.API{Endpoint: "http://127.0.0.1:1", Client: websearch.NewHTTPClient(websearchtest.Loopback)}
	for _, args := range []string{`{"query":"  "}`, `{"query":"x","count":21}`, `{"query":"x","count":-1}`, `{"query":"x","freshness":"decade"}`, `{"query":"` + strings.Repeat("x", 2000) + `"}`} {
		if res := call(t, a, args, testKey); res.ErrorCode != "invalid_arguments" {
			t.Errorf("%s: got %q %s", args, res.ErrorCode, res.Content)
		}
	}
}

func TestResultsAreBounded(t *testing.T) {
	long := strings.Repeat("word ", 400)
	var results []string
	for i := range 25 {
		u := fmt.Sprintf("https://example.org/%d", i)
		if i == 1 {
			u = "javascript:alert(1)"
		}
		results = append(results, fmt.Sprintf(`{"title":%q,"url":%q,"description":%q}`, long, u, long))
	}
	body := `{"type":"search","web":{"results":[` + strings.Join(results, ",") + `]}}`
	res := parseResponse(&websearch.Response{Status: 200, Body: []byte(body)}, searchParams{Args: websearch.Args{Query: "q", Count: 20}}, testKey)
	sr := res.Structured.(*websearch.Result)
	if len(res.Content) > websearch.MaxContent+200 {
		t.Fatalf("content is %d bytes", len(res.Content))
	}
	if sr.Returned != len(sr.Results) || sr.Returned == 0 || sr.Returned+sr.Omitted != 21 {
		t.Fatalf("returned %d omitted %d", sr.Returned, sr.Omitted)
	}
	for _, h := range sr.Results {
		if strings.HasPrefix(h.URL, "javascript:") || len([]rune(h.Title)) > websearch.MaxTitle || len([]rune(h.Snippet)) > websearch.MaxSnippet {
			t.Fatalf("unbounded or unsafe hit: %+v", h)
		}
	}
	if !strings.Contains(res.Content, "more results left out") {
		t.Errorf("content does not say results were left out")
	}
}

func TestNoResults(t *testing.T) {
	res := parseResponse(&websearch.Response{Status: 200, Body: []byte(`{"type":"search","query":{"original":"zzz"}}`)}, searchParams{Args: websearch.Args{Query: "zzz", Count: 5}}, "")
	if res.IsError || !strings.Contains(res.Content, `No web results for "zzz"`) {
		t.Fatalf("got %+v", res)
	}
}

func TestManifestMatchesTheToolset(t *testing.T) {
	websearchtest.CheckManifest(t, toolset, secretTarget)
}

func FuzzParseResponse(f *testing.F) {
	f.Add(200, []byte(documentedResponse(2)))
	f.Add(422, []byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"x"}}`))
	f.Add(200, []byte(`{"web":{"results":[{"url":"https://a","title":"<b"}]}}`))
	f.Add(429, []byte(`not json`))
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
	}, "/res/v1/web/search", secretTarget, testKey)
}

// TestLongQueryIsCutNotRefused: Brave refuses queries over 50 words; the
// query is cut to fit and the result says so.
func TestLongQueryIsCutNotRefused(t *testing.T) {
	srv := newBraveServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n := len(strings.Fields(r.URL.Query().Get("q"))); n > 50 {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"Query too long"}}`)
			return
		}
		fmt.Fprint(w, documentedResponse(1))
	})
	query := strings.TrimSpace(strings.Repeat("word ", 60))
	res := call(t, srv.api(), `{"query":"`+query+`"}`, testKey)
	if res.IsError || !strings.Contains(res.Content, "cut to its first 50 words") {
		t.Fatalf("got %s", res.Content)
	}
	if q := (<-srv.seen).URL.Query().Get("q"); len(strings.Fields(q)) != 50 {
		t.Fatalf("sent %d words", len(strings.Fields(q)))
	}
}

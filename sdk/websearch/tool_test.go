package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"demiurge.dev/sdk"
)

type exampleParams struct {
	Args
	Region string `json:"region,omitempty"`
}

// exampleTool searches a loopback server that answers one result per
// query, and records the queries and keys that reached it.
func exampleTool(t *testing.T, seen *[]exampleParams, keys *[]string) sdk.Tool {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "https://example.org/%s", r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)
	return Search[exampleParams]{
		Provider:    example,
		Doc:         "Search the web.",
		API:         NewAPI(srv.URL, loopback),
		CallTimeout: 2 * time.Second,
		Normalise: func(p exampleParams) (exampleParams, *sdk.Result) {
			if bad := p.Args.Normalise(); bad != nil {
				return p, bad
			}
			if p.Region == "mars" {
				return p, sdk.Errorf("invalid_arguments", "region must be on earth.")
			}
			p.Region = strings.ToUpper(p.Region)
			return p, nil
		},
		Request: func(ctx context.Context, endpoint string, p exampleParams, key string) (*http.Request, error) {
			*seen, *keys = append(*seen, p), append(*keys, key)
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?q="+url.QueryEscape(p.Query), nil)
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			return req, err
		},
		Parse: func(resp *Response, p exampleParams, key string) *sdk.Result {
			if resp.Status != http.StatusOK {
				return example.Classify(resp.Status, resp.Header, "")
			}
			r := &Result{Provider: "example", Query: p.Query, Results: []Hit{}}
			r.Add("Example", string(resp.Body), "", "", 0)
			return example.Render(r)
		},
	}.Tool()
}

func TestSearchNormalisesAndBindsTheKey(t *testing.T) {
	var seen []exampleParams
	var keys []string
	tool := exampleTool(t, &seen, &keys)
	if s := tool.Spec(); s.Name != "web_search" || s.Effect != sdk.EffectNetwork || s.Metadata.ApprovalPolicy != "prompt" || s.Metadata.Risk != "medium" {
		t.Fatalf("spec = %+v", s)
	}
	var schema struct{ Properties map[string]any }
	if err := json.Unmarshal(tool.Spec().Schema, &schema); err != nil || len(schema.Properties) != 4 || schema.Properties["freshness"] == nil {
		t.Fatalf("schema does not inline the common arguments: %s", tool.Spec().Schema)
	}
	ctx := &sdk.Context{Context: context.Background(), Secrets: map[string]string{"EXAMPLE_API_KEY": testKey}}
	res, err := tool.Execute(ctx, json.RawMessage(`{"query":"  golang ","freshness":"week","region":"de"}`))
	if err != nil || res.IsError || !strings.Contains(res.Content, "1. Example\n   https://example.org/golang\n") {
		t.Fatalf("Execute: %v %+v", err, res)
	}
	if res, _ := tool.Execute(&sdk.Context{Context: context.Background(), Secrets: map[string]string{"EXAMPLE_API_KEY": "wrong"}}, json.RawMessage(`{"query":"x"}`)); res.ErrorCode != "unauthorized" {
		t.Fatalf("a refused key: got %+v", res)
	}
	want := exampleParams{Args: Args{Query: "golang", Count: DefaultCount, Freshness: "week"}, Region: "DE"}
	if len(seen) != 2 || seen[0] != want || keys[0] != testKey {
		t.Fatalf("search got %+v with %q; want %+v", seen, keys, want)
	}
}

func TestSearchSoftFailures(t *testing.T) {
	var seen []exampleParams
	var keys []string
	tool := exampleTool(t, &seen, &keys).(sdk.Prechecker)
	withKey := &sdk.Context{Context: context.Background(), Secrets: map[string]string{"EXAMPLE_API_KEY": testKey}}
	noKey := &sdk.Context{Context: context.Background()}
	for _, tc := range []struct {
		args string
		ctx  *sdk.Context
		code string
	}{
		{`{"query":"  "}`, withKey, "invalid_arguments"},
		{`{"query":"x","count":21}`, withKey, "invalid_arguments"},
		{`{"query":"x","count":-1}`, withKey, "invalid_arguments"},
		{`{"query":"x","freshness":"decade"}`, withKey, "invalid_arguments"},
		{`{"query":"` + strings.Repeat("x", 2000) + `"}`, withKey, "invalid_arguments"},
		{`{"query":"x","region":"mars"}`, withKey, "invalid_arguments"},
		{`{"query":"x"}`, noKey, "missing_api_key"},
	} {
		res, err := tool.(sdk.Tool).Execute(tc.ctx, json.RawMessage(tc.args))
		if err != nil || res.ErrorCode != tc.code {
			t.Errorf("%.40s: got %v %+v; want %s", tc.args, err, res, tc.code)
		}
		pre, err := tool.Precheck(tc.ctx, json.RawMessage(tc.args))
		if wantPre := tc.code == "invalid_arguments"; err != nil || (pre != nil) != wantPre || (wantPre && pre.ErrorCode != tc.code) {
			t.Errorf("%.40s: precheck got %v %+v", tc.args, err, pre)
		}
	}
	if len(seen) != 0 {
		t.Fatalf("search ran for refused calls: %+v", seen)
	}
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	res := example.missingKey()
	if res.ErrorCode != "missing_api_key" || !strings.Contains(res.Content, "no EXAMPLE_API_KEY is set") {
		t.Fatalf("got %+v", res)
	}
}

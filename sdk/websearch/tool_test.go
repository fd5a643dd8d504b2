package websearch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/sdk"
)

type exampleParams struct {
	Args
	Region string `json:"region,omitempty"`
}

// exampleTool records what its search received.
func exampleTool(seen *[]exampleParams, keys *[]string) sdk.Tool {
	normalise := func(p exampleParams) (exampleParams, *sdk.Result) {
		if bad := p.Args.Normalise(); bad != nil {
			return p, bad
		}
		if p.Region == "mars" {
			return p, sdk.Errorf("invalid_arguments", "region must be on earth.")
		}
		p.Region = strings.ToUpper(p.Region)
		return p, nil
	}
	return Define(example, "Search the web.", normalise, func(_ context.Context, p exampleParams, key string) *sdk.Result {
		*seen, *keys = append(*seen, p), append(*keys, key)
		return &sdk.Result{Content: "ok"}
	})
}

func TestDefineNormalisesAndBindsTheKey(t *testing.T) {
	var seen []exampleParams
	var keys []string
	tool := exampleTool(&seen, &keys)
	if s := tool.Spec(); s.Name != "web_search" || s.Effect != sdk.EffectNetwork || s.Metadata.ApprovalPolicy != "prompt" || s.Metadata.Risk != "medium" {
		t.Fatalf("spec = %+v", s)
	}
	var schema struct{ Properties map[string]any }
	if err := json.Unmarshal(tool.Spec().Schema, &schema); err != nil || len(schema.Properties) != 4 || schema.Properties["freshness"] == nil {
		t.Fatalf("schema does not inline the common arguments: %s", tool.Spec().Schema)
	}
	ctx := &sdk.Context{Context: context.Background(), Secrets: map[string]string{"EXAMPLE_API_KEY": testKey}}
	res, err := tool.Execute(ctx, json.RawMessage(`{"query":"  golang ","freshness":"week","region":"de"}`))
	if err != nil || res.IsError {
		t.Fatalf("Execute: %v %+v", err, res)
	}
	want := exampleParams{Args: Args{Query: "golang", Count: DefaultCount, Freshness: "week"}, Region: "DE"}
	if len(seen) != 1 || seen[0] != want || keys[0] != testKey {
		t.Fatalf("search got %+v with %q; want %+v", seen, keys, want)
	}
}

func TestDefineSoftFailures(t *testing.T) {
	var seen []exampleParams
	var keys []string
	tool := exampleTool(&seen, &keys).(sdk.Prechecker)
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

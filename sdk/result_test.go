package sdk

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"demiurge.dev/shared/toolsetv1"
)

func TestResultToProto(t *testing.T) {
	tests := []struct {
		name string
		res  *Result
		want *toolsetv1.ToolResult
	}{
		{"text", Text("hello"), &toolsetv1.ToolResult{Content: "hello"}},
		{"error", Errorf("not_found", "no file %s", "a.txt"),
			&toolsetv1.ToolResult{IsError: true, ErrorCode: "not_found", Content: "no file a.txt"}},
		{"json", JSON(map[string]int{"n": 1}),
			&toolsetv1.ToolResult{Content: "{\n  \"n\": 1\n}", Structured: []byte(`{"n":1}`)}},
		{"overrides", Text("raw").WithDisplay("card").WithModelOutput("model"),
			&toolsetv1.ToolResult{Content: "raw", DisplayOutput: "card", HasDisplayOutput: true, ModelOutput: "model", HasModelOutput: true}},
		// An empty override is still an override: the model sees nothing.
		{"empty override", Text("raw").WithModelOutput(""),
			&toolsetv1.ToolResult{Content: "raw", HasModelOutput: true}},
		{"unencodable structured value is dropped", &Result{Content: "c", Structured: func() {}},
			&toolsetv1.ToolResult{Content: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resultToProto(tt.res); !proto.Equal(got, tt.want) {
				t.Errorf("resultToProto = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJSONOfUnencodableValue(t *testing.T) {
	r := JSON(make(chan int))
	if !r.IsError || r.ErrorCode != "encode_failed" || !strings.Contains(r.Content, "encoding the result failed") {
		t.Errorf("JSON(chan) = %+v, want an encode_failed error result", r)
	}
}

func TestSpecToProto(t *testing.T) {
	spec := Spec{
		Name: "run", Description: "Run it.", Schema: json.RawMessage(`{"type":"object"}`), Effect: EffectExec,
		Metadata: Metadata{Risk: "high", Capability: "terminal.exec", ApprovalPolicy: "prompt", DisplayPolicy: "full",
			ModelOutputPolicy: "tail", Capabilities: []string{"network.fetch"}},
		Subjects: []Subject{
			ReadsPath("src"), WritesPath("dst"), FetchesURL("url"),
			RunsCommand("command", "cwd", "env", "background", "timeout"),
		},
	}
	want := &toolsetv1.ToolSpec{
		Name: "run", Description: "Run it.", InputSchema: []byte(`{"type":"object"}`),
		Effect: toolsetv1.Effect_EFFECT_EXEC, HasPrecheck: true,
		Metadata: &toolsetv1.Metadata{Risk: "high", Capability: "terminal.exec", ApprovalPolicy: "prompt",
			DisplayPolicy: "full", ModelOutputPolicy: "tail", Capabilities: []string{"network.fetch"}},
		Subjects: []*toolsetv1.Subject{
			{Kind: &toolsetv1.Subject_Path{Path: &toolsetv1.PathSubject{Argument: "src", Access: toolsetv1.Access_ACCESS_READ}}},
			{Kind: &toolsetv1.Subject_Path{Path: &toolsetv1.PathSubject{Argument: "dst", Access: toolsetv1.Access_ACCESS_WRITE}}},
			{Kind: &toolsetv1.Subject_Url{Url: &toolsetv1.UrlSubject{Argument: "url"}}},
			{Kind: &toolsetv1.Subject_Command{Command: &toolsetv1.CommandSubject{CommandArgument: "command",
				CwdArgument: "cwd", EnvArgument: "env", BackgroundArgument: "background", TimeoutArgument: "timeout"}}},
		},
	}
	if got := specToProto(spec, true); !proto.Equal(got, want) {
		t.Errorf("specToProto =\n%v\nwant\n%v", got, want)
	}
	for effect, pe := range map[Effect]toolsetv1.Effect{
		EffectRead: toolsetv1.Effect_EFFECT_READ, EffectWrite: toolsetv1.Effect_EFFECT_WRITE,
		EffectExec: toolsetv1.Effect_EFFECT_EXEC, EffectNetwork: toolsetv1.Effect_EFFECT_NETWORK,
		EffectControl: toolsetv1.Effect_EFFECT_CONTROL,
	} {
		spec.Effect = effect
		if got := specToProto(spec, false).GetEffect(); got != pe {
			t.Errorf("effect %s became %v, want %v", effect, got, pe)
		}
	}
}

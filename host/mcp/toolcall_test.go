package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	sredact "demiurge.dev/shared/redact"
)

// answerCorpus are tools/call results: the common shapes the host reads
// itself, and every near miss that must go to mcp-go's parser.
var answerCorpus = []string{
	`{"content":[{"type":"text","text":"key s3cr3t-value-42"}],"structuredContent":{"k":"s3cr3t-value-42"}}`,
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}`,
	`{"content":[]}`,
	`{"content":[{"type":"text","text":""}],"isError":false}`,
	`{"content":[{"type":"text","text":"x\u00e9\n\"q\""}],"structuredContent":{"a":[1,2,{"b":null}]}}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent": { "spaced" : 1 } }`,
	`{"content":[{"type":"text","text":"x"}],"unknown":{"z":1}}`,
	`{"Content":[{"TYPE":"text","Text":"case"}]}`,
	`{"content":[{"type":"text","text":"first","text":"last"}]}`,
	`{"content":[{"type":"text","text":"x","extra":1}]}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"s\\\"":"1e400 \\\" 1e400","n":1e-400,"m":-1.5e308,"k":[` + strings.Repeat("9", 308) + `]}}`,
	// Near misses: mcp-go reads these itself.
	`{"Content":[{"teXt":"0"}],"Content":[{"tYpe":"text"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":null}`,
	`{}`,
	`{"content":null}`,
	`{"isError":true}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[{"type":"text","text":5}]}`,
	`{"content":[{"type":"TEXT","text":"x"}]}`,
	`{"content":[{"type":1,"text":"x"}]}`,
	`{"content":[{"text":"x"}]}`,
	`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"]}}]}`,
	`{"content":[{"type":"text","text":"x","_meta":{"k":"v"}}]}`,
	`{"content":[{"type":"text","text":"x","_meta":"bad"}]}`,
	`{"content":[{"type":"text","text":"x","annotations":"bad"}]}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":"bad"}`,
	`{"content":[{"type":"text","text":"x"}],"inputRequests":"bad"}`,
	`{"content":[{"type":"text","text":"x"}],"requestState":5}`,
	`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":"x"},{"type":"resource_link","uri":"file:///a","name":"a"}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"inner"}}]}`,
	`{"content":[{"type":"nope"}]}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":{"k":1}}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":null}`,
	`{"content":[{"type":"text","text":"x"}],"isError":"yes"}`,
	`{"content":"text"}`,
	`{"content":[1]}`,
	`{"resultType":"complete","content":[{"type":"text","text":"x"}]}`,
	`[]`,
	`"x"`,
	`null`,
	`{"content":[{"type":"text","text":"x"}]`,
	// Numbers beyond float64 in structured content: mcp-go decodes it
	// into Go values and refuses the result; so must the host.
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1e400}}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":[-1E+309]}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":` + strings.Repeat("9", 310) + `}}`,
}

// plainCorpus are results plainAnswer reads itself, and near misses it
// must leave to the decoder (escapes, case, duplicates, other keys,
// invalid UTF-8, trailing bytes), each read alike either way.
var plainCorpus = []string{
	// Read by plainAnswer.
	`{"content":[{"type":"text","text":"hello"}]}`,
	` { "isError" : true , "content" : [ { "text" : "b" , "type" : "text" } , {"type":"text","text":"c"} ] } ` + "\n",
	`{"content":[]}`,
	`{"content":[{"type":"text","text":""}],"isError":false}`,
	`{"content":[{"type":"text","text":"é   ok"}]}`,
	// Left to the decoder.
	`{"content":[{"type":"text","text":"a\nb"}]}`,
	`{"content":[{"type":"text","text":"a` + "\t" + `b"}]}`,
	`{"content":[{"type":"text","text":"bad ` + "\xff" + `"}]}`,
	`{"content":[{"type":"text","text":"x"}],"content":[{"type":"text","text":"y"}]}`,
	`{"content":[{"type":"text","text":"x"}],"isError":true,"isError":false}`,
	`{"content":[{"type":"text","type":"text","text":"x"}]}`,
	`{"content":[{"type":"text","text":"x","text":"y"}]}`,
	`{"Content":[{"type":"text","text":"x"}]}`,
	`{"content":[{"Type":"text","text":"x"}]}`,
	`{"content":[{"type":"text","text":"x"}],"isError":null}`,
	`{"content":[{"type":"text","text":"x"}],"isError":truex}`,
	`{"content":[{"type":"text","text":"x"}]}x`,
	`{"content":[{"type":"text","text":"x"},]}`,
	`{"content":[{"type":"text","text":"x"}],}`,
	`{"content":[{"type":"text","text":"x",}]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"text":"x"}]}`,
	`{"isError":false}`,
	`{}`,
}

// plainShapes is how many of plainCorpus's first entries plainAnswer reads.
const plainShapes = 5

// TestPlainAnswerIsTheDecoders: what plainAnswer reads, the decoder reads
// alike (and mcp-go too); the near misses are left to the decoder.
func TestPlainAnswerIsTheDecoders(t *testing.T) {
	a := redactingAdapter()
	for i, raw := range plainCorpus {
		_, _, ok := plainAnswer([]byte(raw))
		if ok != (i < plainShapes) {
			t.Errorf("%s: plainAnswer ok %v", raw, ok)
		}
		samePlainAsDecoder(t, raw)
		sameAsMCPGo(t, a, raw)
	}
	for _, raw := range answerCorpus {
		samePlainAsDecoder(t, raw)
	}
}

// samePlainAsDecoder fails when plainAnswer reads raw other than the
// decoder's common reading.
func samePlainAsDecoder(t *testing.T, raw string) {
	t.Helper()
	text, isError, ok := plainAnswer([]byte(raw))
	if !ok {
		return
	}
	var r commonResult
	if err := json.Unmarshal([]byte(raw), &r); err != nil || !r.common() {
		t.Fatalf("%s: read plain, the decoder: err %v, common %v", raw, err, err == nil && r.common())
	}
	if text != r.text() || isError != r.IsError || r.StructuredContent != nil {
		t.Fatalf("%s: plain %q %v, decoder %q %v %s", raw, text, isError, r.text(), r.IsError, r.StructuredContent)
	}
}

// commonShapes is how many of answerCorpus's first entries are common.
const commonShapes = 13

// TestReadAnswerAsMCPGo: every result reads, and every malformed one is
// refused, exactly as mcp-go's CallTool would have (its parser, then the
// adapter), whichever way readAnswer took.
func TestReadAnswerAsMCPGo(t *testing.T) {
	a := redactingAdapter()
	for _, raw := range answerCorpus {
		sameAsMCPGo(t, a, raw)
	}
}

// TestReadAnswerCommonShapes: the common shapes are read here, not by
// mcp-go (else the saving is gone without a test noticing).
func TestReadAnswerCommonShapes(t *testing.T) {
	for _, raw := range answerCorpus[:commonShapes] {
		var r commonResult
		if err := json.Unmarshal([]byte(raw), &r); err != nil || !r.common() {
			t.Errorf("%s: not read as common (%v)", raw, err)
		}
	}
	for _, raw := range answerCorpus[commonShapes:] {
		var r commonResult
		if json.Unmarshal([]byte(raw), &r) == nil && r.common() {
			t.Errorf("%s: read as common", raw)
		}
	}
}

// TestReadAnswerNeedsInput: a result asking for input first is reported,
// not answered (the caller sends the call again through CallTool).
func TestReadAnswerNeedsInput(t *testing.T) {
	raw := `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}},"requestState":"s"}`
	if _, needsInput, err := readAnswer(json.RawMessage(raw)); err != nil || !needsInput {
		t.Fatalf("needsInput %v, err %v", needsInput, err)
	}
}

func FuzzReadAnswer(f *testing.F) {
	for _, raw := range answerCorpus {
		f.Add(raw)
	}
	a := redactingAdapter()
	for _, raw := range plainCorpus {
		f.Add(raw)
	}
	for _, raw := range answerAttacks {
		if len(raw) < 1<<12 { // the large ones would slow every mutation
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		samePlainAsDecoder(t, raw)
		sameAsMCPGo(t, a, raw)
	})
}

// redactingAdapter has a declaration secret, so that the comparison also
// covers what redaction makes of each answer.
func redactingAdapter() *Adapter {
	return &Adapter{conn: &conn{plan: &plan{secrets: knownSecrets(core.MCPServer{
		Env: []core.KV{{Key: "TOKEN", Value: "s3cr3t-value-42"}},
	})}}}
}

func sameAsMCPGo(t *testing.T, a *Adapter, raw string) {
	t.Helper()
	ans, needsInput, err := readAnswer(json.RawMessage(raw))
	msg := json.RawMessage(raw)
	res, wantErr := mcp.ParseCallToolResult(&msg)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%s: err %v, mcp-go %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if needsInput != res.NeedsInput() {
		t.Fatalf("%s: needsInput %v, mcp-go %v", raw, needsInput, res.NeedsInput())
	}
	if needsInput {
		return
	}
	got, want := a.result(ans), a.result(answerOf(res))
	if got.IsError != want.IsError || got.Content != want.Content || !reflect.DeepEqual(got.Structured, want.Structured) {
		t.Fatalf("%s:\n got %+v\nwant %+v", raw, got, want)
	}
}

// TestCallThroughDispatchReadOnce: calls on a legacy connection (read
// here, not by mcp-go) through dispatch: a small and a 200 KiB answer
// (screened beside redaction) reach the model whole in the untrusted
// envelope, a declared value echoed back is redacted, and a tool error
// stays a tool error.
func TestCallThroughDispatchReadOnce(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "env: {API_KEY: k-9f8e7d6c5b4a}\n")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	if p := f.pool.conns["echo"].c.protocol; mcp.IsModernProtocol(p) {
		t.Fatalf("the echo server speaks %s: not the legacy path", p)
	}
	turn := f.dispatchTurn(r, "echo__echo")
	large := strings.Repeat("line of text ", 200<<10/13)
	for _, text := range []string{"hello", large, "key k-9f8e7d6c5b4a here"} {
		args, _ := json.Marshal(map[string]string{"text": text})
		out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c", Name: "echo__echo", Args: args})
		model := out.Views.Model.String()
		want := strings.ReplaceAll(text, "k-9f8e7d6c5b4a", sredact.Marker("env:API_KEY"))
		if !out.OK() || !envelope.MatchString(model) || unwrapped(model) != want {
			t.Fatalf("%s: %d bytes, enveloped %v", out.Status, len(model), envelope.MatchString(model))
		}
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c", Name: "echo__echo", Args: []byte(`{"text":"fail"}`)})
	if out.Status != dispatch.StatusToolError || unwrapped(out.Views.Model.String()) != "asked to fail" {
		t.Fatalf("%s %q", out.Status, out.Views.Model.String())
	}
}

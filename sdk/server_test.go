package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

type echoParams struct {
	Text string `json:"text"`
}

func echoTool() Tool {
	return Define(Spec{Name: "echo", Description: "Echo text.", Effect: EffectRead,
		Metadata: Metadata{Risk: "low", Capability: "fs.read"}, Subjects: []Subject{ReadsPath("text")}},
		func(_ *Context, p echoParams) (*Result, error) { return Text(p.Text), nil })
}

type guardParams struct {
	Deny  bool `json:"deny,omitempty"`
	Panic bool `json:"panic,omitempty"`
}

// guardedTool has a precheck that refuses on request, so tests can see a
// refusal travel back through Precheck.
func guardedTool() Tool {
	return DefineChecked(Spec{Name: "guarded", Description: "Checked before approval.", Effect: EffectWrite},
		func(_ *Context, p guardParams) (*Result, error) {
			if p.Panic {
				panic("check exploded")
			}
			if p.Deny {
				return Errorf("not_applicable", "the edit would not apply"), nil
			}
			return nil, nil
		},
		func(*Context, guardParams) (*Result, error) { return Text("done"), nil })
}

func TestDescribe(t *testing.T) {
	tc := serveToolset(t, echoTool(), guardedTool())
	d, err := tc.client.Describe(context.Background(), &toolsetv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetName() != "testset" || d.GetVersion() != "1.2.3" || d.GetProtocolMinor() != shared.ProtocolMinor {
		t.Errorf("Describe = %s %s minor %d, want testset 1.2.3 minor %d", d.GetName(), d.GetVersion(), d.GetProtocolMinor(), shared.ProtocolMinor)
	}
	tests := []struct {
		name     string
		precheck bool
		effect   toolsetv1.Effect
		subjects int
	}{
		{"echo", false, toolsetv1.Effect_EFFECT_READ, 1},
		{"guarded", true, toolsetv1.Effect_EFFECT_WRITE, 0},
	}
	if len(d.GetTools()) != len(tests) {
		t.Fatalf("Describe lists %d tools, want %d", len(d.GetTools()), len(tests))
	}
	for i, tt := range tests {
		got := d.GetTools()[i]
		if got.GetName() != tt.name || got.GetHasPrecheck() != tt.precheck || got.GetEffect() != tt.effect || len(got.GetSubjects()) != tt.subjects {
			t.Errorf("tool %d = %s precheck=%v effect=%v subjects=%d, want %s precheck=%v effect=%v subjects=%d",
				i, got.GetName(), got.GetHasPrecheck(), got.GetEffect(), len(got.GetSubjects()), tt.name, tt.precheck, tt.effect, tt.subjects)
		}
		if !json.Valid(got.GetInputSchema()) {
			t.Errorf("tool %s: input schema is not JSON: %s", got.GetName(), got.GetInputSchema())
		}
	}
	if m := d.GetTools()[0].GetMetadata(); m.GetRisk() != "low" || m.GetCapability() != "fs.read" {
		t.Errorf("echo metadata = %v, want risk low, capability fs.read", m)
	}
}

func TestInvokeStreamsEventsThenResult(t *testing.T) {
	emit := Define(Spec{Name: "emit", Description: "Emit one of each event.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			for _, err := range []error{
				ctx.Progress("starting", 0),
				ctx.Output("stdout", []byte("line 1\n")),
				ctx.Output("stderr", []byte("warn\n")),
				ctx.Artifact("out/report.txt", "text/plain", 42, "abc123"),
				ctx.Progress("done", 1),
			} {
				if err != nil {
					return nil, err
				}
			}
			return JSON(map[string]string{"status": "ok"}).WithDisplay("all done"), nil
		})
	tc := serveToolset(t, emit)
	events, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "i1", Tool: "emit"})
	var got []string
	for _, ev := range events {
		switch e := ev.GetEvent().(type) {
		case *toolsetv1.InvokeEvent_Progress:
			got = append(got, fmt.Sprintf("progress %s %.1f", e.Progress.GetMessage(), e.Progress.GetFraction()))
		case *toolsetv1.InvokeEvent_Output:
			got = append(got, fmt.Sprintf("output %s %q", e.Output.GetStream(), e.Output.GetData()))
		case *toolsetv1.InvokeEvent_Artifact:
			a := e.Artifact
			got = append(got, fmt.Sprintf("artifact %s %s %d %s", a.GetPath(), a.GetMediaType(), a.GetSize(), a.GetSha256()))
		}
	}
	want := []string{
		"progress starting 0.0",
		`output stdout "line 1\n"`,
		`output stderr "warn\n"`,
		"artifact out/report.txt text/plain 42 abc123",
		"progress done 1.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.GetIsError() || string(res.GetStructured()) != `{"status":"ok"}` || res.GetDisplayOutput() != "all done" || !res.GetHasDisplayOutput() {
		t.Errorf("result = %v", res)
	}
}

// Events emitted from many goroutines of one call reach the host whole:
// the stream is written by one sender at a time.
func TestInvokeConcurrentEmits(t *testing.T) {
	const workers, each = 8, 50
	burst := Define(Spec{Name: "burst", Description: "Emit from many goroutines.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						if err := ctx.Output("stdout", fmt.Appendf(nil, "%d/%d", w, i)); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			return Text("sent"), <-errs
		})
	tc := serveToolset(t, burst)
	events, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "b", Tool: "burst"})
	if res.GetIsError() {
		t.Fatalf("result = %v", res)
	}
	seen := map[string]bool{}
	for _, ev := range events {
		seen[string(ev.GetOutput().GetData())] = true
	}
	if len(events) != workers*each || len(seen) != workers*each {
		t.Errorf("got %d events (%d distinct), want %d", len(events), len(seen), workers*each)
	}
}

func TestInvokeErrorResults(t *testing.T) {
	tools := []Tool{
		echoTool(),
		Define(Spec{Name: "boom", Description: "Panic.", Effect: EffectRead},
			func(*Context, struct{}) (*Result, error) { panic("secret-ish panic value") }),
		Define(Spec{Name: "fail", Description: "Fail.", Effect: EffectRead},
			func(*Context, struct{}) (*Result, error) { return nil, errors.New("disk is full") }),
		Define(Spec{Name: "refuse", Description: "Refuse.", Effect: EffectRead},
			func(*Context, struct{}) (*Result, error) { return Errorf("refused", "outside the workspace"), nil }),
		Define(Spec{Name: "quiet", Description: "Return nothing.", Effect: EffectRead},
			func(*Context, struct{}) (*Result, error) { return nil, nil }),
	}
	tc := serveToolset(t, tools...)
	tests := []struct {
		tool, args   string
		isError      bool
		code, prefix string
	}{
		{"boom", `{}`, true, "tool_panic", "tool boom failed with an internal error"},
		{"echo", `{"text":"still serving"}`, false, "", "still serving"},
		{"fail", `{}`, true, "tool_error", "disk is full"},
		{"echo", `{"text":7}`, true, "tool_error", "arguments do not fit echo"},
		{"refuse", `{}`, true, "refused", "outside the workspace"},
		{"quiet", `{}`, false, "", ""},
		{"boom", `{}`, true, "tool_panic", "tool boom failed"},
		{"echo", `{"text":"after two panics"}`, false, "", "after two panics"},
	}
	for i, tt := range tests {
		_, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: fmt.Sprint(i), Tool: tt.tool, Arguments: []byte(tt.args)})
		if res.GetIsError() != tt.isError || res.GetErrorCode() != tt.code || !strings.HasPrefix(res.GetContent(), tt.prefix) {
			t.Errorf("%s %s = %v, want is_error=%v code %q content starting %q", tt.tool, tt.args, res, tt.isError, tt.code, tt.prefix)
		}
		if strings.Contains(res.GetContent(), "secret-ish") {
			t.Errorf("a panic value reached the result: %q", res.GetContent())
		}
	}
	if n := tc.active(t); n != 0 {
		t.Errorf("active invocations = %d after every call ended, want 0", n)
	}
}

func TestUnknownTool(t *testing.T) {
	tc := serveToolset(t, echoTool())
	stream, err := tc.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "u", Tool: "nope"})
	if err == nil {
		_, _, err = drain(stream)
	}
	if err == nil || !strings.Contains(err.Error(), `has no tool "nope"`) {
		t.Errorf("Invoke of an unknown tool: %v", err)
	}
	if _, err := tc.client.Precheck(context.Background(), &toolsetv1.EffectRequest{Tool: "nope"}); err == nil || !strings.Contains(err.Error(), `has no tool "nope"`) {
		t.Errorf("Precheck of an unknown tool: %v", err)
	}
}

func TestCancelStopsARunningCall(t *testing.T) {
	b := newBlocker()
	tc := serveToolset(t, b.tool())
	stream, err := tc.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "c1", Tool: "block"})
	if err != nil {
		t.Fatal(err)
	}
	if id := b.waitStarted(t); id != "c1" {
		t.Errorf("the tool saw invocation id %q, want c1", id)
	}
	if n := tc.active(t); n != 1 {
		t.Errorf("active invocations = %d while one call runs, want 1", n)
	}
	resp, err := tc.client.Cancel(context.Background(), &toolsetv1.CancelRequest{InvocationId: "c1"})
	if err != nil || !resp.GetFound() {
		t.Fatalf("Cancel = %v, %v; want found", resp, err)
	}
	if err := b.waitStopped(t); !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v, want context.Canceled", err)
	}
	_, res, err := drain(stream)
	if err != nil {
		t.Fatal(err)
	}
	if !res.GetIsError() || res.GetErrorCode() != "cancelled" || !strings.Contains(res.GetContent(), "context canceled") {
		t.Errorf("result = %v, want a cancelled error result", res)
	}
	if n := tc.active(t); n != 0 {
		t.Errorf("active invocations = %d after the call ended, want 0", n)
	}
	resp, err = tc.client.Cancel(context.Background(), &toolsetv1.CancelRequest{InvocationId: "c1"})
	if err != nil || resp.GetFound() {
		t.Errorf("Cancel of a finished call = %v, %v; want not found", resp, err)
	}
}

func TestClientCancellationStopsTheCall(t *testing.T) {
	b := newBlocker()
	tc := serveToolset(t, b.tool())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := tc.client.Invoke(ctx, &toolsetv1.EffectRequest{InvocationId: "c2", Tool: "block"})
	if err != nil {
		t.Fatal(err)
	}
	b.waitStarted(t)
	cancel()
	if _, _, err := drain(stream); status.Code(err) != codes.Canceled {
		t.Errorf("stream ended with %v, want codes.Canceled", err)
	}
	if err := b.waitStopped(t); !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v, want context.Canceled", err)
	}
	// The handler returns just after the tool; it must let go of the id.
	deadline := time.Now().Add(5 * time.Second)
	for tc.active(t) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call is still counted as active")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTimeoutBoundsTheCall(t *testing.T) {
	b := newBlocker()
	tc := serveToolset(t, b.tool())
	_, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "t1", Tool: "block", TimeoutMs: 20})
	if err := b.waitStopped(t); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the tool's context ended with %v, want context.DeadlineExceeded", err)
	}
	if !res.GetIsError() || res.GetErrorCode() != "cancelled" || !strings.Contains(res.GetContent(), "deadline exceeded") {
		t.Errorf("result = %v, want a cancelled error result naming the deadline", res)
	}
}

func TestDuplicateInvocationIDRefused(t *testing.T) {
	b := newBlocker()
	tc := serveToolset(t, b.tool(), echoTool())
	first, err := tc.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "dup", Tool: "block"})
	if err != nil {
		t.Fatal(err)
	}
	b.waitStarted(t)
	second, err := tc.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "dup", Tool: "echo", Arguments: []byte(`{"text":"x"}`)})
	if err == nil {
		_, _, err = drain(second)
	}
	if err == nil || !strings.Contains(err.Error(), "invocation dup is already running") {
		t.Errorf("a second call with a running id: %v, want it refused", err)
	}
	if n := tc.active(t); n != 1 {
		t.Errorf("active invocations = %d, want 1 (the refused call must not untrack the first)", n)
	}
	if resp, err := tc.client.Cancel(context.Background(), &toolsetv1.CancelRequest{InvocationId: "dup"}); err != nil || !resp.GetFound() {
		t.Fatalf("Cancel = %v, %v", resp, err)
	}
	b.waitStopped(t)
	if _, _, err := drain(first); err != nil {
		t.Fatal(err)
	}
	// Once the first call is over its id is free again.
	if _, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "dup", Tool: "echo", Arguments: []byte(`{"text":"again"}`)}); res.GetContent() != "again" {
		t.Errorf("reusing a finished id: %v", res)
	}
}

func TestPrecheck(t *testing.T) {
	tc := serveToolset(t, echoTool(), guardedTool())
	tests := []struct {
		name, tool, args string
		isError          bool
		code, content    string
	}{
		{"tool without a precheck passes", "echo", `{"text":"x"}`, false, "", ""},
		{"check passes", "guarded", `{}`, false, "", ""},
		{"check refuses", "guarded", `{"deny":true}`, true, "not_applicable", "the edit would not apply"},
		{"check panics", "guarded", `{"panic":true}`, true, "tool_panic", "tool guarded failed with an internal error; the call did not complete"},
		{"arguments do not decode", "guarded", `{"deny":"yes"}`, true, "tool_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tc.client.Precheck(context.Background(), &toolsetv1.EffectRequest{InvocationId: tt.name, Tool: tt.tool, Arguments: []byte(tt.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.GetIsError() != tt.isError || res.GetErrorCode() != tt.code || (tt.content != "" && res.GetContent() != tt.content) {
				t.Errorf("Precheck = %v, want is_error=%v code %q content %q", res, tt.isError, tt.code, tt.content)
			}
		})
	}
}

// callView is what a tool saw of its call.
type callView struct {
	InvocationID, Tool, Workspace, ArtifactRoot, SessionID, TurnID string
	Grants                                                         []Grant
	Secrets                                                        map[string]string
	HasLog                                                         bool
}

func TestInvokeCarriesTheRequestToTheContext(t *testing.T) {
	whoami := Define(Spec{Name: "whoami", Description: "Report the call.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			return JSON(callView{ctx.InvocationID, ctx.Tool, ctx.Workspace, ctx.ArtifactRoot, ctx.SessionID, ctx.TurnID,
				ctx.Grants, ctx.Secrets, ctx.Log != nil}), nil
		})
	tc := serveToolset(t, whoami)
	_, res := tc.invoke(t, &toolsetv1.EffectRequest{
		InvocationId: "inv-7", Tool: "whoami", Workspace: "/work/ws", ArtifactRoot: "/state/artifacts/s1",
		SessionId: "s1", TurnId: "turn-3",
		Grants: []*toolsetv1.PathGrant{
			{Path: "/etc/hosts", Access: toolsetv1.Access_ACCESS_READ},
			{Path: "/tmp/out.txt", Access: toolsetv1.Access_ACCESS_WRITE},
		},
		Secrets: map[string]string{"GITHUB_TOKEN": "ghp_exact"},
	})
	want := callView{
		InvocationID: "inv-7", Tool: "whoami", Workspace: "/work/ws", ArtifactRoot: "/state/artifacts/s1",
		SessionID: "s1", TurnID: "turn-3",
		Grants:  []Grant{{Path: "/etc/hosts"}, {Path: "/tmp/out.txt", Write: true}},
		Secrets: map[string]string{"GITHUB_TOKEN": "ghp_exact"}, HasLog: true,
	}
	wantJSON, _ := json.Marshal(want)
	if string(res.GetStructured()) != string(wantJSON) {
		t.Errorf("the tool saw\n%s\nwant\n%s", res.GetStructured(), wantJSON)
	}
}

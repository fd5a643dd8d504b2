package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/plugins/authored/manifest"
	"demiurge.dev/plugins/authored/worker"
	"demiurge.dev/sdk"
	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// DefaultTimeout bounds a call whose request names no timeout: tool.yaml
// has no timeout field, and a hung module must not hold a worker forever.
const DefaultTimeout = 120 * time.Second

// server is the Toolset service of the authored-tool runtime. Unlike a
// toolset whose tools are compiled in, its tools are the core's: it learns
// the slots.tools root at Configure and describes what it found there.
type server struct {
	toolsetv1.UnimplementedToolsetServer
	log     hclog.Logger
	dial    func(id uint32) (*grpc.ClientConn, error)
	runner  *runner
	timeout time.Duration

	mu       sync.Mutex
	hostConn *grpc.ClientConn
	host     toolsetv1.HostServicesClient
	tools    map[string]*manifest.Tool
	// slots are the core's pipeline slots, invoked as "slot:<id>" and
	// never described: the model cannot call them.
	slots map[string]*manifest.Tool
	specs []*toolsetv1.ToolSpec
	// found is the discovery error, reported by Describe and Invoke.
	found error
	// problems are the tool.yaml files left out, with why.
	problems []string

	calls sdk.Invocations
}

func newServer(dial func(uint32) (*grpc.ClientConn, error), r *runner, log hclog.Logger) *server {
	return &server{
		log: log, dial: dial, runner: r, timeout: DefaultTimeout,
		tools: map[string]*manifest.Tool{},
	}
}

// Configure dials the host's HostServices once and discovers the core's
// authored tools. A broken tool.yaml is kept as the error Describe returns,
// so that the host reports it with the file, line and field.
func (s *server) Configure(_ context.Context, req *toolsetv1.ConfigureRequest) (*toolsetv1.ConfigureResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hostConn == nil && s.dial != nil && req.GetHostServicesBrokerId() != 0 {
		conn, err := s.dial(req.GetHostServicesBrokerId())
		if err != nil {
			return nil, fmt.Errorf("dial host services: %w", err)
		}
		s.hostConn, s.host = conn, toolsetv1.NewHostServicesClient(conn)
	}
	s.tools, s.specs, s.found = map[string]*manifest.Tool{}, nil, nil
	s.problems = nil
	s.slots, s.problems = loadSlots(req.GetSlotsRoot(), req.GetCoreDir())
	if req.GetToolsRoot() == "" {
		return &toolsetv1.ConfigureResponse{}, nil
	}
	tools, problems, err := manifest.DiscoverEach(req.GetToolsRoot(), req.GetCoreDir())
	if err != nil {
		s.found = err
		return &toolsetv1.ConfigureResponse{}, nil
	}
	// A broken tool.yaml is left out and reported (Describe's problems);
	// the others are served.
	for _, p := range problems {
		s.problems = append(s.problems, p.Error())
	}
	for i := range tools {
		t := &tools[i]
		s.tools[t.ID] = t
		s.specs = append(s.specs, spec(t))
	}
	return &toolsetv1.ConfigureResponse{}, nil
}

// spec is a tool as tool.yaml declares it. An authored tool runs arbitrary
// code, so its effect is exec.
func spec(t *manifest.Tool) *toolsetv1.ToolSpec {
	return &toolsetv1.ToolSpec{
		Name: t.ID, Description: t.Description, InputSchema: t.InputSchema,
		Effect: toolsetv1.Effect_EFFECT_EXEC, SourceFile: t.File,
		Metadata: &toolsetv1.Metadata{
			Risk: t.Risk, Capability: t.Capability, ApprovalPolicy: t.ApprovalPolicy,
			DisplayPolicy: t.DisplayPolicy, ModelOutputPolicy: t.ModelOutputPolicy,
			Capabilities: append([]string{}, t.Capabilities...),
		},
	}
}

func (s *server) Describe(context.Context, *toolsetv1.DescribeRequest) (*toolsetv1.DescribeResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.found != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "authored tools: %v", s.found)
	}
	return &toolsetv1.DescribeResponse{Name: Name, Version: Version, ProtocolMinor: shared.ProtocolMinor, Tools: s.specs, Problems: s.problems}, nil
}

func (s *server) lookup(name string) (*manifest.Tool, toolsetv1.HostServicesClient, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.found != nil {
		return nil, nil, status.Errorf(codes.FailedPrecondition, "authored tools: %v", s.found)
	}
	t, ok := s.tools[name]
	if id, slot := strings.CutPrefix(name, SlotPrefix); slot {
		t, ok = s.slots[id]
	}
	if !ok {
		return nil, nil, status.Errorf(codes.NotFound, "no authored tool %q", name)
	}
	return t, s.host, nil
}

// Invoke runs one call. The host has already checked the tool's singular
// capability and resolved its approval, so only now is the module imported
// (when no warm worker of the tool exists yet) and called.
func (s *server) Invoke(req *toolsetv1.EffectRequest, stream toolsetv1.Toolset_InvokeServer) error {
	t, host, err := s.lookup(req.GetTool())
	if err != nil {
		return err
	}
	if t.Changed() {
		// Fail closed: the approval the host just resolved came from the
		// declaration loaded at the start of the session.
		return stream.Send(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Result{Result: &toolsetv1.ToolResult{
			IsError: true, ErrorCode: "tool_changed",
			Content: fmt.Sprintf("%s was not run: its tool.yaml changed after this session loaded it; start a new session to use the new declaration", t.ID),
		}}})
	}
	timeout := s.timeout
	if ms := req.GetTimeoutMs(); ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	ctx, cancel := context.WithTimeoutCause(stream.Context(), timeout,
		fmt.Errorf("%s did not finish within %s; its worker was stopped", t.ID, timeout))
	defer cancel()
	id := req.GetInvocationId()
	if !s.calls.Track(id, cancel) {
		return status.Errorf(codes.AlreadyExists, "invocation %s is already running", id)
	}
	defer s.calls.Untrack(id)

	res := s.runner.call(ctx, t, req, hostBridge{client: host, invocation: id})
	return stream.Send(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Result{Result: res}})
}

// hostBridge answers a worker's requests through HostServices.
type hostBridge struct {
	client     toolsetv1.HostServicesClient
	invocation string
}

func (h hostBridge) Capability(ctx context.Context, name string, require bool) (bool, string) {
	if h.client == nil {
		return false, "no host connection answers capability requests"
	}
	resp, err := h.client.Capability(ctx, &toolsetv1.CapabilityRequest{InvocationId: h.invocation, Capability: name, Require: require})
	if err != nil {
		return false, "the host did not answer: " + status.Convert(err).Message()
	}
	return resp.GetGranted(), resp.GetReason()
}

func (h hostBridge) Deliver(ctx context.Context, text string) error {
	if h.client == nil {
		return errors.New("no host connection takes delivered output")
	}
	_, err := h.client.Deliver(ctx, &toolsetv1.DeliverRequest{InvocationId: h.invocation, Text: text})
	if err != nil {
		return errors.New(status.Convert(err).Message())
	}
	return nil
}

func (h hostBridge) CallTool(ctx context.Context, tool string, args json.RawMessage) (worker.ToolCallResult, error) {
	if h.client == nil {
		return worker.ToolCallResult{}, errors.New("no host connection runs tool calls")
	}
	resp, err := h.client.CallTool(ctx, &toolsetv1.CallToolRequest{InvocationId: h.invocation, Tool: tool, Arguments: args})
	if err != nil {
		return worker.ToolCallResult{}, errors.New(status.Convert(err).Message())
	}
	return worker.ToolCallResult{Content: resp.GetContent(), IsError: resp.GetIsError(), Status: resp.GetStatus()}, nil
}

// Agents answers ctx.agents through SpawnAgent and AgentTask; the host's
// refusals come back as the SDK's exceptions.
func (h hostBridge) Agents(ctx context.Context, req worker.AgentRequest) (json.RawMessage, error) {
	if h.client == nil {
		return nil, &worker.AgentError{Code: worker.AgentErrFailed, Message: "no host connection starts child agents"}
	}
	var out string
	var err error
	switch req.Op {
	case "run", "spawn":
		var resp *toolsetv1.SpawnAgentResponse
		resp, err = h.client.SpawnAgent(ctx, &toolsetv1.SpawnAgentRequest{InvocationId: h.invocation, RequestJson: string(req.Args), Wait: req.Op == "run"})
		out = resp.GetResultJson()
	case "status", "wait", "cancel":
		var resp *toolsetv1.AgentTaskResponse
		resp, err = h.client.AgentTask(ctx, &toolsetv1.AgentTaskRequest{InvocationId: h.invocation, TaskId: req.TaskID, Op: req.Op, TimeoutMs: req.TimeoutMS})
		out = resp.GetResultJson()
	default:
		return nil, &worker.AgentError{Code: worker.AgentErrValue, Message: fmt.Sprintf("unknown ctx.agents request %q", req.Op)}
	}
	if err != nil {
		return nil, agentError(err)
	}
	return json.RawMessage(out), nil
}

func agentError(err error) error {
	st := status.Convert(err)
	msg := strings.TrimPrefix(st.Message(), "spawn refused: ")
	code := worker.AgentErrFailed
	switch st.Code() {
	case codes.InvalidArgument:
		code = worker.AgentErrValue
	case codes.PermissionDenied:
		code = worker.AgentErrPermission
	case codes.NotFound:
		code = worker.AgentErrNotFound
	}
	return &worker.AgentError{Code: code, Message: msg}
}

// Precheck: authored tools declare none, so every call may go on.
func (s *server) Precheck(context.Context, *toolsetv1.EffectRequest) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

func (s *server) Cancel(_ context.Context, req *toolsetv1.CancelRequest) (*toolsetv1.CancelResponse, error) {
	return s.calls.Cancel(req), nil
}

func (s *server) Health(context.Context, *toolsetv1.HealthRequest) (*toolsetv1.HealthResponse, error) {
	return s.calls.Health(), nil
}

// close drops the host connection; the runner's workers are the caller's.
func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hostConn != nil {
		_ = s.hostConn.Close()
		s.hostConn, s.host = nil, nil
	}
}

package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"demiurge.dev/shared"
	"demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// server implements the Toolset service for one toolset.
type server struct {
	toolsetv1.UnimplementedToolsetServer
	name, version string
	tools         map[string]Tool
	specs         []*toolsetv1.ToolSpec
	log           hclog.Logger
	dial          func(id uint32) (*grpc.ClientConn, error)

	hostMu   sync.Mutex
	hostConn *grpc.ClientConn
	host     toolsetv1.HostServicesClient

	calls Invocations
}

func newServer(ts Toolset, tools []Tool, broker *plugin.GRPCBroker, log hclog.Logger) (*server, error) {
	s := &server{name: ts.Name, version: ts.Version, tools: map[string]Tool{}, log: log}
	if broker != nil {
		s.dial = func(id uint32) (*grpc.ClientConn, error) {
			return broker.DialWithOptions(id, shared.GRPCDialOptions()...)
		}
	}
	for _, t := range tools {
		spec := t.Spec()
		if err := spec.validate(); err != nil {
			return nil, err
		}
		if _, dup := s.tools[spec.Name]; dup {
			return nil, fmt.Errorf("tool %s is registered twice", spec.Name)
		}
		s.tools[spec.Name] = t
		_, precheck := t.(Prechecker)
		s.specs = append(s.specs, specToProto(spec, precheck))
	}
	return s, nil
}

func (s *server) Describe(context.Context, *toolsetv1.DescribeRequest) (*toolsetv1.DescribeResponse, error) {
	return &toolsetv1.DescribeResponse{Name: s.name, Version: s.version, ProtocolMinor: shared.ProtocolMinor, Tools: s.specs}, nil
}

// Configure dials the host's HostServices once; the connection is kept for
// the life of the plugin, because a broker dial costs about 10 ms.
func (s *server) Configure(_ context.Context, req *toolsetv1.ConfigureRequest) (*toolsetv1.ConfigureResponse, error) {
	if s.dial == nil {
		return nil, errors.New("no broker to dial the host through")
	}
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	if s.hostConn != nil {
		return &toolsetv1.ConfigureResponse{}, nil
	}
	conn, err := s.dial(req.GetHostServicesBrokerId())
	if err != nil {
		return nil, fmt.Errorf("dial host services: %w", err)
	}
	s.hostConn = conn
	s.host = toolsetv1.NewHostServicesClient(conn)
	return &toolsetv1.ConfigureResponse{}, nil
}

func (s *server) hostClient() (toolsetv1.HostServicesClient, error) {
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	if s.host == nil {
		return nil, ErrNoHost
	}
	return s.host, nil
}

func (s *server) Invoke(req *toolsetv1.EffectRequest, stream toolsetv1.Toolset_InvokeServer) error {
	tool, ok := s.tools[req.GetTool()]
	if !ok {
		return fmt.Errorf("toolset %s has no tool %q", s.name, req.GetTool())
	}
	ctx, cancel := callDeadline(stream.Context(), req.GetTimeoutMs())
	defer cancel()
	id := req.GetInvocationId()
	if !s.calls.Track(id, cancel) {
		return fmt.Errorf("invocation %s is already running", id)
	}
	defer s.calls.Untrack(id)

	sender := &lockedSender{send: stream.Send}
	c := s.callContext(ctx, req, sender.Send)
	res := s.execute(c, tool.Execute, req.GetArguments())
	return sender.Send(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Result{Result: resultToProto(res)}})
}

// callDeadline bounds a call by timeoutMs when it is set; the one cancel
// func it returns is also what Cancel calls.
func callDeadline(parent context.Context, timeoutMs int64) (context.Context, context.CancelFunc) {
	if timeoutMs > 0 {
		return context.WithTimeout(parent, time.Duration(timeoutMs)*time.Millisecond)
	}
	return context.WithCancel(parent)
}

// Precheck runs a tool's effect-free check; a tool without one passes.
func (s *server) Precheck(ctx context.Context, req *toolsetv1.EffectRequest) (*toolsetv1.ToolResult, error) {
	tool, ok := s.tools[req.GetTool()]
	if !ok {
		return nil, fmt.Errorf("toolset %s has no tool %q", s.name, req.GetTool())
	}
	pc, ok := tool.(Prechecker)
	if !ok {
		return &toolsetv1.ToolResult{}, nil
	}
	c := s.callContext(ctx, req, nil)
	res := s.execute(c, pc.Precheck, req.GetArguments())
	return resultToProto(res), nil
}

func (s *server) callContext(ctx context.Context, req *toolsetv1.EffectRequest, send func(*toolsetv1.InvokeEvent) error) *Context {
	c := &Context{
		Context: ctx, InvocationID: req.GetInvocationId(), Tool: req.GetTool(),
		Workspace: req.GetWorkspace(), ArtifactRoot: req.GetArtifactRoot(),
		SessionID: req.GetSessionId(), TurnID: req.GetTurnId(),
		Secrets: req.GetSecrets(), Env: req.GetEnv(), SecretsExpire: time.Duration(req.GetSecretsExpireMs()) * time.Millisecond,
		SandboxPolicy: req.GetSandboxPolicy(),
		SkillsRoot:    req.GetSkillsRoot(),
		Timezone:      req.GetTimezone(),
		Paths:         resolvedPaths(req.GetPaths()),
		Log:           s.log.With("tool", req.GetTool(), "invocation", req.GetInvocationId()),
		send:          send, host: s.hostClient,
	}
	for _, v := range req.GetRedactValues() {
		c.Redact = append(c.Redact, redact.Secret{Target: v.GetTarget(), Value: v.GetValue()})
	}
	c.OutputCap = req.GetOutputCapBytes()
	for _, g := range req.GetGrants() {
		c.Grants = append(c.Grants, Grant{Path: g.GetPath(), Write: g.GetAccess() == toolsetv1.Access_ACCESS_WRITE})
	}
	return c
}

// execute runs the tool and turns errors and panics into error results, so
// a bug in one tool fails that call and not the plugin.
func (s *server) execute(c *Context, run func(*Context, json.RawMessage) (*Result, error), args json.RawMessage) (res *Result) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("tool panicked", "tool", c.Tool, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = Errorf("tool_panic", "tool %s failed with an internal error; the call did not complete", c.Tool)
		}
	}()
	res, err := run(c, args)
	switch {
	case err != nil && c.Err() != nil:
		return Errorf("cancelled", "%s: %v", c.Tool, context.Cause(c))
	case err != nil:
		return Errorf("tool_error", "%v", err)
	case res == nil:
		return Text("")
	}
	return res
}

func (s *server) Cancel(_ context.Context, req *toolsetv1.CancelRequest) (*toolsetv1.CancelResponse, error) {
	return s.calls.Cancel(req), nil
}

func (s *server) Health(context.Context, *toolsetv1.HealthRequest) (*toolsetv1.HealthResponse, error) {
	return s.calls.Health(), nil
}

func (s *server) close() {
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	if s.hostConn != nil {
		_ = s.hostConn.Close()
		s.hostConn, s.host = nil, nil
	}
}

// resolvedPaths are EffectRequest.paths by argument name; a repeated
// argument's last path wins, as when the field was a map.
func resolvedPaths(entries []*toolsetv1.ResolvedPath) map[string]string {
	if len(entries) == 0 {
		return nil
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[e.GetArg()] = e.GetPath()
	}
	return m
}

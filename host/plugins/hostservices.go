package plugins

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// Hooks are the host's answers for one invocation: dispatch sets them, the
// plugin reaches them through HostServices while its call runs.
type Hooks struct {
	// Capability answers can/require for the tool's effect capabilities.
	Capability func(ctx context.Context, capability string, require bool) (granted bool, reason string)
	// Deliver sends text to the active turn.
	Deliver func(ctx context.Context, text string) error
	// Tasks answers the background-task RPCs, scoped to the calling turn;
	// nil refuses them.
	Tasks TaskHooks
	// Tools answers ToolsList with the calling turn's catalog; nil refuses
	// it.
	Tools func(ctx context.Context) ([]*toolsetv1.ToolListing, error)
	// Capabilities answers SearchCapabilities for the calling turn's
	// session; nil refuses it.
	Capabilities func(ctx context.Context, query string, limit int) (*toolsetv1.SearchCapabilitiesResponse, error)

	// Clarify, Todos and History answer the conversation RPCs; dispatch
	// sets each only for a built-in tool that declares the service
	// (catalog.ToolSpec.GrantsHostService), so nil refuses them to every
	// other call (conversationservices.go).
	Clarify ClarifyHook
	Todos   TodoHooks
	History HistoryHook
	// CallTool runs a tool call for a pipeline slot through dispatch
	// under the session's authority; dispatch sets it only for slot
	// invocations (dispatch.Turn.RunSlot), so nil refuses it to every
	// tool.
	CallTool func(ctx context.Context, tool string, args []byte) (*toolsetv1.CallToolResponse, error)
	// Delegate answers DelegateTask; dispatch sets it only for the
	// built-in delegate_task, so nil refuses every other call.
	Delegate DelegateHook
	// Agents answers SpawnAgent and AgentTask (authored code's
	// ctx.agents); dispatch sets it only for authored invocations that
	// may start children, so nil refuses every other call.
	Agents *AgentHooks
	// Schedule answers ScheduleManage; dispatch sets it only for the
	// built-in schedule_manage, so nil refuses every other call.
	Schedule ScheduleHook
	// Core answers CoreControl; dispatch sets it only for the built-in
	// rollback_core and evolve_core, so nil refuses every other call.
	Core CoreHook
}

// hostServices serves one plugin. It knows only the invocations the host
// issued to that plugin, so a plugin cannot act for another plugin's call.
type hostServices struct {
	toolsetv1.UnimplementedHostServicesServer
	mu     sync.Mutex
	active map[string]Hooks
}

func newHostServices() *hostServices { return &hostServices{active: map[string]Hooks{}} }

func (h *hostServices) begin(id string, hooks Hooks) {
	h.mu.Lock()
	h.active[id] = hooks
	h.mu.Unlock()
}

func (h *hostServices) end(id string) {
	h.mu.Lock()
	delete(h.active, id)
	h.mu.Unlock()
}

func (h *hostServices) hooks(id string) (Hooks, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hk, ok := h.active[id]
	if !ok {
		return Hooks{}, status.Errorf(codes.PermissionDenied, "invocation %q is not active for this plugin", id)
	}
	return hk, nil
}

func (h *hostServices) Capability(ctx context.Context, req *toolsetv1.CapabilityRequest) (*toolsetv1.CapabilityResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Capability == nil {
		return &toolsetv1.CapabilityResponse{Granted: false, Reason: "no capability answers for this call"}, nil
	}
	ok, reason := hk.Capability(ctx, req.GetCapability(), req.GetRequire())
	return &toolsetv1.CapabilityResponse{Granted: ok, Reason: reason}, nil
}

func (h *hostServices) Deliver(ctx context.Context, req *toolsetv1.DeliverRequest) (*toolsetv1.DeliverResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Deliver == nil {
		return nil, status.Error(codes.FailedPrecondition, "no active turn to deliver output to")
	}
	if err := hk.Deliver(ctx, req.GetText()); err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return &toolsetv1.DeliverResponse{}, nil
}

// CallTool runs a pipeline slot's tool call through the hook dispatch
// set for that slot's invocation; any other invocation is refused.
func (h *hostServices) CallTool(ctx context.Context, req *toolsetv1.CallToolRequest) (*toolsetv1.CallToolResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.CallTool == nil {
		return nil, status.Error(codes.PermissionDenied, "only a pipeline slot may call tools through the host")
	}
	resp, err := hk.CallTool(ctx, req.GetTool(), req.GetArguments())
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return resp, nil
}

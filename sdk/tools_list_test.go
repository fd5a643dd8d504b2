package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"

	"demiurge.dev/shared/toolsetv1"
)

// catalogHost is a real HostServices server whose ToolsList answers with
// the invocation id it was asked for, so the test sees the request reach
// it unchanged.
type catalogHost struct {
	toolsetv1.UnimplementedHostServicesServer
}

func (catalogHost) ToolsList(_ context.Context, req *toolsetv1.ToolsListRequest) (*toolsetv1.ToolsListResponse, error) {
	return &toolsetv1.ToolsListResponse{Tools: []*toolsetv1.ToolListing{
		{Name: "read_file", Risk: "low", Approval: "auto", Requires: []string{"fs.read"}},
		{Name: "seen_by_" + req.GetInvocationId(), Risk: "medium", Approval: "prompt"},
	}}, nil
}

func listTool() Tool {
	return Define(Spec{Name: "list", Description: "List the turn's tools.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			tools, err := ctx.ToolsList()
			if errors.Is(err, ErrNoHost) {
				return Text("no host"), nil
			}
			if err != nil {
				return nil, err
			}
			var names []string
			for _, t := range tools {
				names = append(names, t.GetName()+"/"+t.GetRisk()+"/"+t.GetApproval()+"/"+strings.Join(t.GetRequires(), "+"))
			}
			return Text(strings.Join(names, ",")), nil
		})
}

func TestToolsListThroughTheBroker(t *testing.T) {
	tc := serveToolset(t, listTool())
	tc.serveHost(t, catalogHost{})
	_, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "inv7", Tool: "list"})
	if want := "read_file/low/auto/fs.read,seen_by_inv7/medium/prompt/"; res.GetContent() != want {
		t.Errorf("ToolsList through the broker = %q, want %q", res.GetContent(), want)
	}
}

func TestToolsListWithoutAHost(t *testing.T) {
	tc := serveToolset(t, listTool())
	if _, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "n1", Tool: "list"}); res.GetContent() != "no host" {
		t.Errorf("ToolsList without Configure = %q, want ErrNoHost", res.GetContent())
	}
}

package plugins

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

func TestToolsListAnswersOnlyIssuedInvocations(t *testing.T) {
	hs := newHostServices()
	listing := func(name string) func(context.Context) ([]*toolsetv1.ToolListing, error) {
		return func(context.Context) ([]*toolsetv1.ToolListing, error) {
			return []*toolsetv1.ToolListing{{Name: name, Risk: "low", Approval: "auto"}}, nil
		}
	}
	hs.begin("turn_a", Hooks{Tools: listing("a_tool")})
	hs.begin("turn_b", Hooks{Tools: listing("b_tool")})
	hs.begin("without", Hooks{})
	hs.begin("broken", Hooks{Tools: func(context.Context) ([]*toolsetv1.ToolListing, error) {
		return nil, errors.New("catalog gone")
	}})
	hs.begin("ended", Hooks{Tools: listing("ended_tool")})
	hs.end("ended")
	for _, c := range []struct {
		id       string
		want     codes.Code
		wantTool string
	}{
		{"turn_a", codes.OK, "a_tool"},
		{"turn_b", codes.OK, "b_tool"},
		{"never-issued", codes.PermissionDenied, ""},
		{"ended", codes.PermissionDenied, ""},
		{"without", codes.FailedPrecondition, ""},
		{"broken", codes.Unavailable, ""},
	} {
		resp, err := hs.ToolsList(context.Background(), &toolsetv1.ToolsListRequest{InvocationId: c.id})
		if got := status.Code(err); got != c.want {
			t.Errorf("%s: %s (%v), want %s", c.id, got, err, c.want)
			continue
		}
		if c.wantTool != "" && (len(resp.GetTools()) != 1 || resp.GetTools()[0].GetName() != c.wantTool) {
			t.Errorf("%s listed %v, want only %s", c.id, resp.GetTools(), c.wantTool)
		}
	}
}

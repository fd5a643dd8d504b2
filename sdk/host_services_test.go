package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"demiurge.dev/shared/toolsetv1"
)

// hostServices is a real HostServices server that grants a fixed set of
// capabilities and records what the plugin asked.
type hostServices struct {
	toolsetv1.UnimplementedHostServicesServer
	granted map[string]bool

	mu        sync.Mutex
	asked     []string // "invocation capability require"
	delivered []string // "invocation text"
}

func (h *hostServices) Capability(_ context.Context, req *toolsetv1.CapabilityRequest) (*toolsetv1.CapabilityResponse, error) {
	h.mu.Lock()
	h.asked = append(h.asked, fmt.Sprintf("%s %s %v", req.GetInvocationId(), req.GetCapability(), req.GetRequire()))
	h.mu.Unlock()
	if h.granted[req.GetCapability()] {
		return &toolsetv1.CapabilityResponse{Granted: true}, nil
	}
	return &toolsetv1.CapabilityResponse{Reason: "not in the core's grants"}, nil
}

func (h *hostServices) Deliver(_ context.Context, req *toolsetv1.DeliverRequest) (*toolsetv1.DeliverResponse, error) {
	h.mu.Lock()
	h.delivered = append(h.delivered, req.GetInvocationId()+" "+req.GetText())
	h.mu.Unlock()
	return &toolsetv1.DeliverResponse{}, nil
}

// hostReport is what capsTool found out from the host.
type hostReport struct {
	CanRead, CanNet       bool
	RequireRead           string
	RequireNet            string
	Deliver               string
	NoHost                bool // every host call failed with ErrNoHost
	CanReadErr, CanNetErr string
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func capsTool() Tool {
	return Define(Spec{Name: "caps", Description: "Ask the host.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			var r hostReport
			var canReadErr, canNetErr error
			r.CanRead, canReadErr = ctx.Can("fs.read")
			r.CanNet, canNetErr = ctx.Can("network.fetch")
			reqRead, reqNet := ctx.Require("fs.read"), ctx.Require("network.fetch")
			deliver := ctx.Deliver("halfway there")
			r.CanReadErr, r.CanNetErr = errText(canReadErr), errText(canNetErr)
			r.RequireRead, r.RequireNet, r.Deliver = errText(reqRead), errText(reqNet), errText(deliver)
			r.NoHost = true
			for _, err := range []error{canReadErr, canNetErr, reqRead, reqNet, deliver} {
				r.NoHost = r.NoHost && errors.Is(err, ErrNoHost)
			}
			return JSON(r), nil
		})
}

func report(t *testing.T, res *toolsetv1.ToolResult) hostReport {
	t.Helper()
	var r hostReport
	if err := json.Unmarshal(res.GetStructured(), &r); err != nil {
		t.Fatalf("result %v: %v", res, err)
	}
	return r
}

func TestHostServicesThroughTheBroker(t *testing.T) {
	tc := serveToolset(t, capsTool())
	host := &hostServices{granted: map[string]bool{"fs.read": true}}
	tc.serveHost(t, host)
	conn := tc.server.hostConn

	_, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "h1", Tool: "caps"})
	got := report(t, res)
	want := hostReport{
		CanRead: true, CanNet: false,
		RequireNet: "capability network.fetch is not granted: not in the core's grants",
	}
	if got != want {
		t.Errorf("the tool saw %+v, want %+v", got, want)
	}
	host.mu.Lock()
	asked, delivered := strings.Join(host.asked, "; "), strings.Join(host.delivered, "; ")
	host.mu.Unlock()
	if want := "h1 fs.read false; h1 network.fetch false; h1 fs.read true; h1 network.fetch true"; asked != want {
		t.Errorf("the host was asked %q, want %q", asked, want)
	}
	if want := "h1 halfway there"; delivered != want {
		t.Errorf("the host got deliveries %q, want %q", delivered, want)
	}

	// A second Configure keeps the connection it has: one dial per plugin.
	if _, err := tc.client.Configure(context.Background(), &toolsetv1.ConfigureRequest{HostServicesBrokerId: 999}); err != nil {
		t.Fatalf("second Configure: %v", err)
	}
	if tc.server.hostConn != conn {
		t.Error("a second Configure replaced the host connection")
	}
	if _, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "h2", Tool: "caps"}); !report(t, res).CanRead {
		t.Error("the host connection stopped working after a second Configure")
	}
}

func TestHostServicesWithoutConfigure(t *testing.T) {
	tc := serveToolset(t, capsTool())
	_, res := tc.invoke(t, &toolsetv1.EffectRequest{InvocationId: "n1", Tool: "caps"})
	if r := report(t, res); !r.NoHost || r.CanRead {
		t.Errorf("without Configure the tool saw %+v, want ErrNoHost from every host call", r)
	}
}

func TestConfigureWithoutBroker(t *testing.T) {
	s, err := newServer(Toolset{Name: "ts"}, nil, nil, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Configure(context.Background(), &toolsetv1.ConfigureRequest{HostServicesBrokerId: 1}); err == nil || !strings.Contains(err.Error(), "no broker") {
		t.Errorf("Configure without a broker = %v, want an error naming the missing broker", err)
	}
}

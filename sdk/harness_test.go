package sdk

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// toolsetConn is a toolset served in-process over real gRPC by go-plugin's
// test helpers, with the broker both sides use for HostServices.
type toolsetConn struct {
	client toolsetv1.ToolsetClient
	broker *plugin.GRPCBroker // the host side of the broker
	server *server
	wg     sync.WaitGroup // host-side broker servers
}

func serveToolset(t *testing.T, tools ...Tool) *toolsetConn {
	t.Helper()
	tc := &toolsetConn{}
	p := &shared.ToolsetPlugin{Impl: func(b *plugin.GRPCBroker) toolsetv1.ToolsetServer {
		s, err := newServer(Toolset{Name: "testset", Version: "1.2.3"}, tools, b, hclog.NewNullLogger())
		if err != nil {
			t.Fatalf("newServer: %v", err)
		}
		tc.server = s
		return s
	}}
	client, _ := plugin.TestPluginGRPCConn(t, false, shared.VersionedPlugins(p)[shared.ProtocolVersion])
	t.Cleanup(func() {
		// The plugin's host connection first: the host's broker server
		// stops gracefully and would wait for it. Close then stops the
		// plugin's server through go-plugin's controller, as a host does;
		// stopping it here as well would race with that.
		tc.server.close()
		_ = client.Close()
		tc.wg.Wait()
	})
	raw, err := client.Dispense(shared.PluginName)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	c := raw.(*shared.ToolsetClient)
	tc.client, tc.broker = c.ToolsetClient, c.Broker
	return tc
}

// serveHost serves host on the broker, as the host does, and configures
// the plugin to dial it.
func (tc *toolsetConn) serveHost(t *testing.T, host toolsetv1.HostServicesServer) uint32 {
	t.Helper()
	id := tc.broker.NextId()
	tc.wg.Add(1)
	go func() {
		defer tc.wg.Done()
		tc.broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(opts...)
			toolsetv1.RegisterHostServicesServer(s, host)
			return s
		})
	}()
	if _, err := tc.client.Configure(context.Background(), &toolsetv1.ConfigureRequest{HostServicesBrokerId: id}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return id
}

// invoke runs one call to the end and returns its events and result.
func (tc *toolsetConn) invoke(t *testing.T, req *toolsetv1.EffectRequest) ([]*toolsetv1.InvokeEvent, *toolsetv1.ToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := tc.client.Invoke(ctx, req)
	if err != nil {
		t.Fatalf("Invoke %s: %v", req.GetTool(), err)
	}
	events, res, err := drain(stream)
	if err != nil {
		t.Fatalf("Invoke %s: %v", req.GetTool(), err)
	}
	return events, res
}

// drain reads a stream to its end: the events before the result, the
// result, and the error that ended the stream if it was not io.EOF.
func drain(stream toolsetv1.Toolset_InvokeClient) ([]*toolsetv1.InvokeEvent, *toolsetv1.ToolResult, error) {
	var events []*toolsetv1.InvokeEvent
	var res *toolsetv1.ToolResult
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if res == nil {
				return events, nil, errors.New("stream ended without a result")
			}
			return events, res, nil
		}
		if err != nil {
			return events, res, err
		}
		if res != nil {
			return events, res, errors.New("event after the result")
		}
		if r := ev.GetResult(); r != nil {
			res = r
			continue
		}
		events = append(events, ev)
	}
}

func (tc *toolsetConn) active(t *testing.T) int32 {
	t.Helper()
	h, err := tc.client.Health(context.Background(), &toolsetv1.HealthRequest{})
	if err != nil {
		t.Fatalf("Health: %v", err)
	}
	if h.GetStatus() != "ok" {
		t.Errorf("Health status = %q, want ok", h.GetStatus())
	}
	return h.GetActiveInvocations()
}

// blocker is a tool that signals when it runs and then waits for its
// context, so tests can cancel a call that is certainly running.
type blocker struct {
	started chan string // invocation ids, as calls start
	stopped chan error  // the context error each call saw
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 4), stopped: make(chan error, 4)}
}

func (b *blocker) tool() Tool {
	return Define(Spec{Name: "block", Description: "Wait until cancelled.", Effect: EffectRead},
		func(ctx *Context, _ struct{}) (*Result, error) {
			b.started <- ctx.InvocationID
			<-ctx.Done()
			b.stopped <- ctx.Err()
			return nil, ctx.Err()
		})
}

func (b *blocker) waitStarted(t *testing.T) string {
	t.Helper()
	select {
	case id := <-b.started:
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("the blocking tool never started")
		return ""
	}
}

func (b *blocker) waitStopped(t *testing.T) error {
	t.Helper()
	select {
	case err := <-b.stopped:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the blocking tool was never cancelled")
		return nil
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if wordcountBin != "" { // built into a directory of this process's own
			os.RemoveAll(filepath.Dir(wordcountBin))
		}
		os.Exit(code)
	}))
}

// hostServices answers as dispatch does: an effect capability is granted
// only when the tool declared it and the session holds it.
type hostServices struct {
	toolsetv1.UnimplementedHostServicesServer
	declared, session []string
	mu                sync.Mutex
	asked, delivered  []string
}

func (h *hostServices) Capability(_ context.Context, req *toolsetv1.CapabilityRequest) (*toolsetv1.CapabilityResponse, error) {
	h.mu.Lock()
	h.asked = append(h.asked, fmt.Sprintf("%s require=%v", req.GetCapability(), req.GetRequire()))
	h.mu.Unlock()
	switch c := req.GetCapability(); {
	case !slices.Contains(h.declared, c):
		return &toolsetv1.CapabilityResponse{Reason: "the tool did not declare " + c + " in its capabilities"}, nil
	case !slices.Contains(h.session, c):
		return &toolsetv1.CapabilityResponse{Reason: c + " is not granted to this session"}, nil
	}
	return &toolsetv1.CapabilityResponse{Granted: true}, nil
}

func (h *hostServices) Deliver(_ context.Context, req *toolsetv1.DeliverRequest) (*toolsetv1.DeliverResponse, error) {
	h.mu.Lock()
	h.delivered = append(h.delivered, req.GetText())
	h.mu.Unlock()
	return &toolsetv1.DeliverResponse{}, nil
}

// conn is the runtime served over real go-plugin gRPC, configured with a
// tools root and a HostServices server on the broker, as the host does.
type conn struct {
	client toolsetv1.ToolsetClient
	host   *hostServices
	server *server
	runner *runner
	// workspace is the one workspace of every call, as in a host session.
	workspace string
	// sandbox is every call's sandbox_policy: by default the host's word
	// that the operator chose --sandbox off (sandbox_test.go runs the
	// worker under the real helper).
	sandbox string
}

const sandboxOff = `{"mode":"off","workspace":"","tmp_dir":""}`

func serve(t testing.TB, toolsRoot, coreDir string, host *hostServices) *conn {
	t.Helper()
	c := &conn{host: host, runner: newRunner(), workspace: t.TempDir(), sandbox: sandboxOff}
	p := &shared.ToolsetPlugin{Impl: func(b *plugin.GRPCBroker) toolsetv1.ToolsetServer {
		c.server = newServer(func(id uint32) (*grpc.ClientConn, error) {
			return b.DialWithOptions(id, shared.GRPCDialOptions()...)
		}, c.runner, hclog.NewNullLogger())
		return c.server
	}}
	client, _ := plugin.TestPluginGRPCConn(t, false, shared.VersionedPlugins(p)[shared.ProtocolVersion])
	raw, err := client.Dispense(shared.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	tc := raw.(*shared.ToolsetClient)
	c.client = tc.ToolsetClient
	var wg sync.WaitGroup
	id := tc.Broker.NextId()
	wg.Go(func() {
		tc.Broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(opts...)
			toolsetv1.RegisterHostServicesServer(s, host)
			return s
		})
	})
	t.Cleanup(func() {
		c.runner.close()
		c.server.close()
		_ = client.Close()
		wg.Wait()
	})
	if _, err := c.client.Configure(context.Background(), &toolsetv1.ConfigureRequest{
		HostServicesBrokerId: id, ToolsRoot: toolsRoot, CoreDir: coreDir,
	}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return c
}

func (c *conn) invoke(t testing.TB, tool, args string, timeoutMs int64) *toolsetv1.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := c.client.Invoke(ctx, &toolsetv1.EffectRequest{
		InvocationId: "inv_" + tool, Tool: tool, Arguments: []byte(args),
		Workspace: c.workspace, TurnId: "turn_1", SessionId: "ses_1", TimeoutMs: timeoutMs,
		SandboxPolicy: c.sandbox,
	})
	if err != nil {
		t.Fatalf("Invoke %s: %v", tool, err)
	}
	var res *toolsetv1.ToolResult
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Invoke %s: %v", tool, err)
		}
		if r := ev.GetResult(); r != nil {
			res = r
		}
	}
	if res == nil {
		t.Fatalf("Invoke %s: no result", tool)
	}
	return res
}

// writeCore writes files (path → content) under a fresh core directory and
// returns it with its agent/tools root; a path ending in "*" is made
// executable.
func writeCore(t testing.TB, files map[string]string) (coreDir, toolsRoot string) {
	t.Helper()
	coreDir = t.TempDir()
	toolsRoot = filepath.Join(coreDir, "agent", "tools")
	if err := os.MkdirAll(toolsRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		mode := os.FileMode(0o644)
		if q, ok := strings.CutSuffix(p, "*"); ok {
			p, mode = q, 0o755
		}
		full := filepath.Join(toolsRoot, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return coreDir, toolsRoot
}

var (
	wordcountOnce sync.Once
	wordcountBin  string
	wordcountErr  error
)

// wordcount builds the example executable authored tool.
func wordcount(t *testing.T) []byte {
	t.Helper()
	wordcountOnce.Do(func() {
		dir, err := os.MkdirTemp("", "authored-wordcount-")
		if err != nil {
			wordcountErr = err
			return
		}
		wordcountBin = filepath.Join(dir, "wordcount")
		if out, err := exec.Command("go", "build", "-o", wordcountBin, "./example/wordcount").CombinedOutput(); err != nil {
			wordcountErr = fmt.Errorf("build wordcount: %v\n%s", err, out)
		}
	})
	if wordcountErr != nil {
		t.Fatal(wordcountErr)
	}
	b, err := os.ReadFile(wordcountBin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeExecutable(path string, b []byte) error { return os.WriteFile(path, b, 0o755) }

package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// python is the interpreter the Python toolset's #! line names.
const python = "/usr/bin/python3"

// buildPyPlugin packs testdata/pyplugin into one executable zipapp, the
// file the host checksums and starts.
func buildPyPlugin(t *testing.T) string {
	t.Helper()
	needDep(t, "python3-grpcio") // and python3-cryptography, which scripts/test-deps installs with it
	bin := filepath.Join(t.TempDir(), "demiurge-toolset-pyecho")
	if out, err := exec.Command(python, "-m", "zipapp", "testdata/pyplugin", "-p", python, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("zipapp: %v\n%s", err, out)
	}
	return bin
}

// TestPythonPluginSpeaksTheProtocol starts the Python toolset with
// go-plugin's own client, as the host does: the magic cookie, AutoMTLS
// (the plugin's certificate arrives in its handshake line and the
// connection is mutually authenticated), the gRPC health service, and
// the Toolset service from the proto.
func TestPythonPluginSpeaksTheProtocol(t *testing.T) {
	bin := buildPyPlugin(t)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(&shared.ToolsetPlugin{}),
		Cmd:              exec.Command(bin),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard}),
	})
	defer client.Kill()
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	if v := client.NegotiatedVersion(); v != shared.ProtocolVersion {
		t.Errorf("negotiated protocol %d, want %d", v, shared.ProtocolVersion)
	}
	if err := rpc.Ping(); err != nil {
		t.Fatalf("grpc.health.v1 Check of service \"plugin\": %v", err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	ts := raw.(*shared.ToolsetClient)
	ctx := context.Background()
	d, err := ts.Describe(ctx, &toolsetv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetName() != "pyecho" || len(d.GetTools()) != 1 || d.GetTools()[0].GetName() != "py_echo" || d.GetProtocolMinor() < 1 || d.GetProtocolMinor() > shared.ProtocolMinor {
		t.Fatalf("describe = %v", d)
	}
	if h, err := ts.Health(ctx, &toolsetv1.HealthRequest{}); err != nil || h.GetStatus() != "ok" {
		t.Fatalf("Toolset.Health = %v, %v", h, err)
	}
	stream, err := ts.Invoke(ctx, &toolsetv1.EffectRequest{InvocationId: "i1", Tool: "py_echo", Arguments: []byte(`{"text":"hello"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var result *toolsetv1.ToolResult
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r := ev.GetResult(); r != nil {
			result = r
		}
	}
	if result == nil || result.GetContent() != "py_echo: hello" || result.GetIsError() {
		t.Fatalf("result = %v", result)
	}
}

// TestPythonPluginRefusesToRunByHand: without the magic cookie it says
// what it is and exits, like a Go plugin.
func TestPythonPluginRefusesToRunByHand(t *testing.T) {
	out, err := exec.Command(buildPyPlugin(t)).CombinedOutput()
	if err == nil {
		t.Fatalf("ran by hand without the cookie: %s", out)
	}
	if want := "demiurge starts it"; !strings.Contains(string(out), want) {
		t.Errorf("output %q lacks %q", out, want)
	}
}

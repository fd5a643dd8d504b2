package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const trivialModule = "def execute(ctx, args):\n    return args[\"n\"] + 1\n"

// BenchmarkWarmWorkerCall is one call of a trivial Python tool on a warm
// worker: the protocol round trip, with the module already imported.
func BenchmarkWarmWorkerCall(b *testing.B) {
	c := pythonToolB(b, trivialModule)
	p := NewPool()
	defer p.Close()
	ctx := context.Background()
	host := &recordingHost{}
	args := json.RawMessage(`{"n":41}`)
	if _, _, err := p.Call(ctx, "bench", c, "inv", args, CallContext{}, host); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		out, _, err := p.Call(ctx, "bench", c, "inv", args, CallContext{}, host)
		if err != nil || string(out.Value) != "42" {
			b.Fatalf("%s, %v", out.Value, err)
		}
	}
}

// BenchmarkBarePython3RoundTrip runs the same function the way a host
// without warm workers would: a fresh python3 per call that imports the
// module, reads the arguments from stdin and prints the result.
func BenchmarkBarePython3RoundTrip(b *testing.B) {
	c := pythonToolB(b, trivialModule)
	script := "import json, sys\nsys.path.insert(0, sys.argv[1])\nimport module\nprint(json.dumps(module.execute(None, json.load(sys.stdin))))\n"
	for b.Loop() {
		cmd := exec.Command(c.Argv[0], "-I", "-B", "-c", script, c.Dir)
		cmd.Env = c.Env
		cmd.Stdin = bytes.NewReader([]byte(`{"n":41}`))
		out, err := cmd.Output()
		if err != nil || string(bytes.TrimSpace(out)) != "42" {
			b.Fatalf("%s, %v", out, err)
		}
	}
}

// pythonToolB is pythonTool for benchmarks.
func pythonToolB(b *testing.B, src string) Command {
	b.Helper()
	py, err := Python(context.Background(), os.Getenv("PATH"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	mod := filepath.Join(dir, "module.py")
	if err := os.WriteFile(mod, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	return Command{Argv: []string{py, "-I", "-B", "-c", Bridge, mod, "execute"}, Dir: dir, Env: env}
}

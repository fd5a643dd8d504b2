package main

import "testing"

// BenchmarkInvokeWarmPythonTool is one whole Invoke of a trivial Python
// authored tool through the plugin's gRPC service (go-plugin in process),
// on a warm worker: what a call costs on top of the host's own path.
func BenchmarkInvokeWarmPythonTool(b *testing.B) {
	coreDir, root := writeCore(b, map[string]string{
		"inc/tool.yaml": "", "inc/module.py": "def execute(ctx, args):\n    return args[\"n\"] + 1\n",
	})
	c := serve(b, root, coreDir, &hostServices{})
	if res := c.invoke(b, "inc", `{"n":41}`, 0); res.GetContent() != "42" {
		b.Fatalf("result = %v", res)
	}
	for b.Loop() {
		if res := c.invoke(b, "inc", `{"n":41}`, 0); res.GetContent() != "42" {
			b.Fatalf("result = %v", res)
		}
	}
}

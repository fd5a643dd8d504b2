package main

import (
	"fmt"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// BenchmarkAuthoredSandbox is one Invoke of a trivial Python tool with and
// without the OS sandbox, in the same run: "cold" starts a new worker for
// every call (a fresh runtime each time: helper, namespaces, Landlock,
// seccomp, then the interpreter), "warm" reuses the worker, whose
// confinement was paid once.
func BenchmarkAuthoredSandbox(b *testing.B) {
	helper := sandboxHelper(b)
	module := "def execute(ctx, args):\n    return args[\"n\"] + 1\n"
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.ReadOnly} {
		policy := func(c *conn, root string) string {
			if mode == sandbox.Off {
				return sandboxOff
			}
			p := sandbox.Policy{Mode: mode, Workspace: c.workspace, TmpDir: b.TempDir(), Helper: helper, ReadOnly: []string{root}}
			enc, err := p.Encode()
			if err != nil {
				b.Fatal(err)
			}
			return enc
		}
		for _, warm := range []bool{false, true} {
			name := fmt.Sprintf("%s/cold", mode)
			if warm {
				name = fmt.Sprintf("%s/warm", mode)
			}
			b.Run(name, func(b *testing.B) {
				coreDir, root := writeCore(b, map[string]string{"inc/tool.yaml": "", "inc/module.py": module})
				c := serve(b, root, coreDir, &hostServices{})
				c.sandbox = policy(c, root)
				if res := c.invoke(b, "inc", `{"n":41}`, 0); res.GetContent() != "42" {
					b.Fatalf("result = %v", res)
				}
				for b.Loop() {
					if !warm {
						c.runner.pool.Close()
						c.runner.pool = newRunner().pool
					}
					if res := c.invoke(b, "inc", `{"n":41}`, 0); res.GetContent() != "42" {
						b.Fatalf("result = %v", res)
					}
				}
			})
		}
	}
}

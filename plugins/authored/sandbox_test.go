package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/sandbox/sandboxtest"
)

const touchModule = `import os
open(os.path.join(os.getcwd(), ".imported"), "a").close()

def execute(ctx, args):
    try:
        with open(os.path.join(ctx.workspace, "NOTES.md"), "a") as f:
            f.write("x\n")
        return "wrote"
    except OSError as e:
        return "refused: %s" % e
`

// Seed 004, on the plugin's side: a call without a sandbox policy, or
// with one the runtime cannot read or use, never starts its worker.
func TestWorkerFailsClosedWithoutAPolicy(t *testing.T) {
	tests := []struct{ name, policy, want string }{
		{"no policy", "", "the host sent no OS sandbox policy"},
		{"not JSON", "read-only", "cannot read"},
		{"an unknown restriction", `{"mode":"read-only","workspace":"/w","tmp_dir":"/t","hide_everything":true}`, "cannot read"},
		{"an unknown mode", `{"mode":"lenient","workspace":"/w","tmp_dir":"/t"}`, "unknown mode"},
		{"no helper", `{"mode":"read-only","workspace":"/w","tmp_dir":"/t"}`, "without the helper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coreDir, root := writeCore(t, map[string]string{"touch/tool.yaml": "", "touch/module.py": touchModule})
			c := serve(t, root, coreDir, &hostServices{})
			c.sandbox = tt.policy
			res := c.invoke(t, "touch", `{}`, 0)
			if !res.GetIsError() || res.GetErrorCode() != "sandbox_unavailable" || !strings.Contains(res.GetContent(), tt.want) {
				t.Errorf("result = %v, want sandbox_unavailable saying %q", res, tt.want)
			}
			if _, err := os.Stat(filepath.Join(c.workspace, ".imported")); err == nil {
				t.Error("the worker started")
			}
		})
	}
}

// sandboxHelper is the real re-exec helper.
func sandboxHelper(t testing.TB) string { return sandboxtest.Helper(t) }

// Under the host's policy the worker runs through the helper: read-only
// cannot write the workspace, workspace-write can; the interpreter (which
// may live under a hidden home, as with pyenv) still loads.
func TestWorkerRunsUnderTheHostsPolicy(t *testing.T) {
	helper := sandboxHelper(t)
	for _, tt := range []struct {
		mode sandbox.Mode
		want string
	}{{sandbox.ReadOnly, "refused"}, {sandbox.WorkspaceWrite, "wrote"}} {
		t.Run(string(tt.mode), func(t *testing.T) {
			coreDir, root := writeCore(t, map[string]string{"touch/tool.yaml": "", "touch/module.py": touchModule})
			c := serve(t, root, coreDir, &hostServices{})
			p := sandbox.Policy{Mode: tt.mode, Workspace: c.workspace, TmpDir: t.TempDir(), Helper: helper, ReadOnly: []string{root}}
			if tt.mode == sandbox.ReadOnly {
				// The import marker cannot be written either: read-only
				// must still import the module, so it goes.
				if err := os.WriteFile(filepath.Join(root, "touch", "module.py"), []byte(strings.Replace(touchModule, `open(os.path.join(os.getcwd(), ".imported"), "a").close()`, "", 1)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			enc, err := p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			c.sandbox = enc
			res := c.invoke(t, "touch", `{}`, 0)
			if res.GetIsError() || !strings.HasPrefix(res.GetContent(), tt.want) {
				t.Errorf("result = %v, want %q", res, tt.want)
			}
			_, err = os.Stat(filepath.Join(c.workspace, "NOTES.md"))
			if wrote := err == nil; wrote != (tt.want == "wrote") {
				t.Errorf("NOTES.md written = %v", wrote)
			}
		})
	}
}

// The interpreter's prefix is opened to the worker, never a directory
// that holds the home directory.
func TestReadableDirKeepsHomeHidden(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	for _, tt := range []struct {
		dir string
		ok  bool
	}{
		{"/", false}, {home, false}, {filepath.Dir(home), false}, {home + "/", false},
		{"relative/dir", false},
		{filepath.Join(home, ".pyenv", "versions", "3.12"), true}, {"/usr", true}, {"/opt/python", true},
	} {
		if err := readableDir(tt.dir); (err == nil) != tt.ok {
			t.Errorf("readableDir(%q) = %v, want ok=%v", tt.dir, err, tt.ok)
		}
	}
}

// A warm worker serves only calls with the policy it started under: one
// started unconfined is never reused for a sandboxed call.
func TestWarmWorkerKeepsItsPolicy(t *testing.T) {
	helper := sandboxHelper(t)
	module := strings.Replace(touchModule, `open(os.path.join(os.getcwd(), ".imported"), "a").close()`, "", 1)
	coreDir, root := writeCore(t, map[string]string{"touch/tool.yaml": "", "touch/module.py": module})
	c := serve(t, root, coreDir, &hostServices{})
	if res := c.invoke(t, "touch", `{}`, 0); !strings.HasPrefix(res.GetContent(), "wrote") {
		t.Fatalf("unconfined call = %v", res)
	}
	p := sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: c.workspace, TmpDir: t.TempDir(), Helper: helper, ReadOnly: []string{root}}
	enc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	c.sandbox = enc
	if res := c.invoke(t, "touch", `{}`, 0); !strings.HasPrefix(res.GetContent(), "refused") {
		t.Errorf("read-only call after an unconfined one = %v, want refused", res)
	}
}

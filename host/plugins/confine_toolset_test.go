package plugins

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/toolsetv1"
)

// hostileFlags build the hostile test toolset's variants (TestMain).
var hostileFlags = map[string]string{
	"hostilew": "-X main.name=hostilew -X main.writes=1",
	"hostilen": "-X main.name=hostilen -X main.network=1",
	// hostilex is a binary for toolset hostile whose tool declares a
	// write and the network: what a swap puts in hostile's place.
	"hostilex": "-X main.name=hostile -X main.writes=1 -X main.network=1",
}

// attackBed is a workspace, a state directory, an operator's home with a
// key in it and a file outside them all, and a hostile toolset plugin
// installed by path (plugins install's own flow: a confined trial start,
// then the record of what its tools declared).
type attackBed struct {
	root, ws, state, home, outside string
	name                           string
	m                              *Manager
}

func newAttackBed(t *testing.T, name string, stateInWorkspace, record bool) *attackBed {
	t.Helper()
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	b := &attackBed{root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside"), name: name}
	b.state = filepath.Join(root, "state")
	if stateInWorkspace {
		b.state = filepath.Join(b.ws, ".state")
	}
	t.Setenv("HOME", b.home)
	for p, text := range map[string]string{
		filepath.Join(b.home, ".ssh", "id_ed25519"): "SECRET-KEY",
		filepath.Join(b.home, ".bashrc"):            "BASHRC",
		filepath.Join(b.ws, "file"):                 "WS-FILE",
		filepath.Join(b.ws, "sub", "f"):             "WS-SUB",
		filepath.Join(b.state, "token"):             "STATE-TOKEN",
		b.outside:                                   "OUTSIDE",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link": b.outside, "sshlink": filepath.Join(b.home, ".ssh", "id_ed25519"),
		"statelink": filepath.Join(b.state, "token"), "homelink": b.home,
	} {
		if err := os.Symlink(target, filepath.Join(b.ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	plugins, home := filepath.Join(b.state, "plugins"), filepath.Join(b.state, "runtime", "home")
	if record {
		if _, err := Install(context.Background(), InstallOptions{Source: filepath.Join(fixtures, BinaryPrefix+name), Dir: plugins, Home: home}); err != nil {
			t.Fatal(err)
		}
	} else if err := copyFixture(name, plugins); err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Dirs: []Dir{{Path: plugins, Origin: OriginInstalled}}, Home: home, StateDir: b.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	m.SetWorkDir(b.ws)
	b.m = m
	return b
}

func copyFixture(name, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, suffix := range []string{"", ".sha256"} {
		b, err := os.ReadFile(filepath.Join(fixtures, BinaryPrefix+name+suffix))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, BinaryPrefix+name+suffix), b, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// attempt has the plugin try op and returns its report: "ok: ..." or
// "refused: ...".
func (b *attackBed) attempt(t *testing.T, op, path, target string) string {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"op": op, "path": path, "target": target})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.m.Invoke(ctx, b.name, &toolsetv1.EffectRequest{InvocationId: t.Name() + op + path + target, Tool: b.name + "_attempt", Arguments: args, Workspace: b.ws}, Hooks{}, nil)
	if err != nil {
		t.Fatalf("%s %s %s: %v", op, path, target, err)
	}
	return res.GetContent()
}

func (b *attackBed) mustRefuse(t *testing.T, op, path, target string) {
	t.Helper()
	got := b.attempt(t, op, path, target)
	if !strings.HasPrefix(got, "refused: ") {
		t.Errorf("%s %s %s was let through: %.80q", op, path, target, got)
	}
	t.Logf("%s %s %s: %s", op, path, target, got)
}

func (b *attackBed) mustAllow(t *testing.T, op, path, target, want string) {
	t.Helper()
	if got := b.attempt(t, op, path, target); !strings.HasPrefix(got, "ok: ") || !strings.Contains(got, want) {
		t.Errorf("%s %s %s: %.200q, want it let through with %q", op, path, target, got, want)
	}
}

// TestAToolsetPluginInstalledByPathIsConfined attacks the host from a
// hostile plugin the operator installed by path, on the real kernel, with
// the state directory inside the workspace (as when the operator's state
// lies in the project): it reads its workspace, and nothing of the state,
// the operator's home, or anything outside, however the path is spelled.
func TestAToolsetPluginInstalledByPathIsConfined(t *testing.T) {
	b := newAttackBed(t, "hostile", true, true)
	// What it may: its workspace, by absolute and relative path.
	b.mustAllow(t, "read", filepath.Join(b.ws, "file"), "", "WS-FILE")
	b.mustAllow(t, "read", "sub/f", "", "WS-SUB")
	b.mustAllow(t, "list", ".", "", "file")
	// The operator's key and configuration, the state and what is outside.
	for _, p := range []string{
		filepath.Join(b.home, ".ssh", "id_ed25519"), filepath.Join(b.home, ".bashrc"),
		filepath.Join(b.state, "token"), ".state/token", "sub/../.state/token",
		b.outside, "/etc/passwd", "/etc/shadow",
		// Symbolic links from the workspace to outside it.
		"link", "sshlink", "statelink", "homelink/.ssh/id_ed25519",
		// /proc's ways round: the root and cwd links, the host's own.
		"/proc/self/root" + filepath.Join(b.home, ".ssh", "id_ed25519"),
		"/proc/self/root" + filepath.Join(b.state, "token"),
		"/proc/self/cwd/.state/token",
		"/proc/" + strconv.Itoa(os.Getpid()) + "/root" + b.outside,
		"/proc/" + strconv.Itoa(os.Getpid()) + "/environ",
	} {
		b.mustRefuse(t, "read", p, "")
	}
	b.mustRefuse(t, "list", filepath.Join(b.home, ".ssh"), "")
	// Its tools declared no write: the workspace is read-only to it, and
	// nothing else is writable either.
	for _, p := range []string{"new", "sub/new", "file", filepath.Join(b.state, "x"), b.outside, filepath.Join(b.home, ".bashrc"), "link"} {
		b.mustRefuse(t, "write", p, "")
	}
	// No IP socket: the host's loopback is out of reach.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b.mustRefuse(t, "tcp", "", ln.Addr().String())
	b.mustRefuse(t, "tcp", "", "[::1]:22")
	// Nor any way out through an egress proxy: its tools declared none.
	if env := b.attempt(t, "env", "", ""); strings.Contains(env, "DEMIURGE_EGRESS_SOCKET") {
		t.Errorf("a plugin that declared no network has an egress proxy:\n%s", env)
	}
}

// TestAToolsetPluginWritesItsArtifactsAndReadsNoneOfThem: a call's bulk
// output goes under the state's artifact directory, which the plugin may
// make directories and files in and write, but never list, read or
// remove: other calls' and sessions' artifacts lie there too. Read-only
// as the plugin is, it writes there. (With the state inside the
// workspace, the names beneath it can be listed: the workspace's own
// listing passes down; their contents stay out of reach.)
func TestAToolsetPluginWritesItsArtifactsAndReadsNoneOfThem(t *testing.T) {
	b := newAttackBed(t, "hostile", false, true)
	art := filepath.Join(b.state, "runtime", "artifacts")
	other := filepath.Join(art, "othersession", "inv_1", "stdout")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("ANOTHER SESSION'S OUTPUT"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(art, "mysession", "inv_2")
	b.mustAllow(t, "mkdir", mine, "", "")
	b.mustAllow(t, "write", filepath.Join(mine, "stdout"), "", "")
	b.mustRefuse(t, "read", other, "")
	b.mustRefuse(t, "read", filepath.Join(mine, "stdout"), "")
	b.mustRefuse(t, "list", art, "")
	b.mustRefuse(t, "list", filepath.Dir(other), "")
	b.mustRefuse(t, "remove", other, "")
	b.mustRefuse(t, "link", filepath.Join(mine, "hard"), other)
	b.mustRefuse(t, "write", filepath.Join(b.state, "runtime", "x"), "")
	if got, _ := os.ReadFile(filepath.Join(mine, "stdout")); string(got) != "written by a hostile plugin" {
		t.Fatalf("the artifact holds %q", got)
	}
}

// TestAToolsetPluginWritesTheWorkspaceOnlyWhenItsToolsDeclareIt: a
// plugin whose tool declares a write writes its workspace and nothing
// else (not the state, the home, outside, nor through a link, nor a hard
// link to a file outside); one whose install record is missing (copied in
// by hand) is granted no write whatever its tools say.
func TestAToolsetPluginWritesTheWorkspaceOnlyWhenItsToolsDeclareIt(t *testing.T) {
	b := newAttackBed(t, "hostilew", false, true)
	b.mustAllow(t, "write", "new", "", "")
	b.mustAllow(t, "write", filepath.Join(b.ws, "sub", "new"), "", "")
	for _, p := range []string{filepath.Join(b.state, "x"), filepath.Join(b.state, "token"), b.outside, filepath.Join(b.home, ".bashrc"), "link", "sshlink", filepath.Join(b.root, "new")} {
		b.mustRefuse(t, "write", p, "")
	}
	b.mustRefuse(t, "link", "sub/hard", b.outside)
	b.mustRefuse(t, "link", "sub/hardkey", filepath.Join(b.home, ".ssh", "id_ed25519"))
	if got, _ := os.ReadFile(b.outside); string(got) != "OUTSIDE" {
		t.Fatalf("outside file now %q", got)
	}

	nr := newAttackBed(t, "hostilew", false, false)
	nr.mustAllow(t, "read", "file", "", "WS-FILE")
	nr.mustRefuse(t, "write", "new", "")
}

// TestAWritingToolsetPluginLeavesGitsHooksAndConfigurationAlone: git's
// configuration and hooks in the workspace are code the operator's next
// git run executes outside any sandbox: a plugin that writes the
// workspace writes neither (nor makes a hook where none was), as a
// command's sandbox holds them; the rest of .git and the workspace it
// writes (but for new entries directly in the workspace or .git, which
// are only listed on the way to the protected ones).
func TestAWritingToolsetPluginLeavesGitsHooksAndConfigurationAlone(t *testing.T) {
	b := newAttackBed(t, "hostilew", false, true)
	for p, text := range map[string]string{".git/config": "[core]\n", ".git/HEAD": "ref: refs/heads/main\n", ".git/hooks/pre-commit.sample": "#!/bin/sh\n"} {
		if err := os.MkdirAll(filepath.Join(b.ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(b.ws, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.mustAllow(t, "write", "sub/new", "", "")
	b.mustAllow(t, "write", "file", "", "")
	b.mustAllow(t, "write", ".git/HEAD", "", "")
	b.mustAllow(t, "read", ".git/config", "", "[core]")
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".git/hooks/pre-commit.sample", ".git/config.worktree", ".git/info/attributes"} {
		b.mustRefuse(t, "write", p, "")
	}
	b.mustRefuse(t, "mkdir", ".git/info", "")
	b.mustRefuse(t, "remove", ".git/hooks/pre-commit.sample", "")
}

// TestTheStateInsideTheWorkspaceIsNotWrittenEither: with the state in
// the workspace, a writing plugin writes the workspace beside it, never
// into it.
func TestTheStateInsideTheWorkspaceIsNotWrittenEither(t *testing.T) {
	b := newAttackBed(t, "hostilew", true, true)
	b.mustAllow(t, "write", "sub/new", "", "")
	for _, p := range []string{".state/x", ".state/token", ".state/plugins/demiurge-toolset-hostilew", ".state/runtime/home/x"} {
		b.mustRefuse(t, "write", p, "")
	}
	b.mustRefuse(t, "link", "sub/hard", ".state/token")
}

// TestAWorkspaceHoldingTheHomeHidesItsConfiguration: with a workspace
// above the operator's home, the home's other files are the workspace's,
// but its configuration (~/.ssh, every dot-entry) is not, nor the state.
func TestAWorkspaceHoldingTheHomeHidesItsConfiguration(t *testing.T) {
	b := newAttackBed(t, "hostilew", false, true)
	if err := os.WriteFile(filepath.Join(b.home, "notes"), []byte("NOTES"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(b.home, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	b.m.SetWorkDir(b.root)
	b.mustAllow(t, "read", filepath.Join(b.home, "notes"), "", "NOTES")
	b.mustAllow(t, "read", b.outside, "", "OUTSIDE")
	b.mustAllow(t, "write", filepath.Join(b.ws, "new"), "", "")
	for _, p := range []string{filepath.Join(b.home, ".ssh", "id_ed25519"), filepath.Join(b.home, ".bashrc"), filepath.Join(b.state, "token"), filepath.Join(b.ws, "sshlink")} {
		b.mustRefuse(t, "read", p, "")
	}
	for _, p := range []string{filepath.Join(b.home, ".bashrc"), filepath.Join(b.home, ".profile"), filepath.Join(b.home, ".ssh", "authorized_keys"), filepath.Join(b.home, "bin", "ls"), filepath.Join(b.state, "x")} {
		b.mustRefuse(t, "write", p, "")
	}
}

// TestAToolsetPluginThatDeclaresTheNetworkGetsOnlyTheEgressProxy: its
// way out is the host's egress proxy; its own IP sockets stay refused.
func TestAToolsetPluginThatDeclaresTheNetworkGetsOnlyTheEgressProxy(t *testing.T) {
	b := newAttackBed(t, "hostilen", false, true)
	if env := b.attempt(t, "env", "", ""); !strings.Contains(env, "DEMIURGE_EGRESS_SOCKET=") {
		t.Errorf("no egress proxy for a plugin whose tool declares the network:\n%s", env)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b.mustRefuse(t, "tcp", "", ln.Addr().String())
	b.mustRefuse(t, "write", "new", "")
}

// TestTheHostilePluginUnconfinedReachesEverything is the attacks' control:
// the same plugin as a toolset beside the host's binary (the host's own,
// not confined) reads the key and the state, so the refusals above are
// the confinement's.
func TestTheHostilePluginUnconfinedReachesEverything(t *testing.T) {
	b := newAttackBed(t, "hostile", true, true)
	m, err := New(Config{Dirs: []Dir{{Path: filepath.Join(b.state, "plugins"), Origin: OriginBuiltin}}, Home: filepath.Join(b.state, "runtime", "home"), StateDir: b.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	m.SetWorkDir(b.ws)
	b.m = m
	b.mustAllow(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "", "SECRET-KEY")
	b.mustAllow(t, "read", ".state/token", "", "STATE-TOKEN")
	b.mustAllow(t, "write", "new", "", "")
}

// TestUnconfinableToolsetPluginIsRefused: where the kernel cannot confine
// a plugin installed by path it is not started, and the error names the
// operator's switch; with the switch in the host's environment it starts.
func TestUnconfinableToolsetPluginIsRefused(t *testing.T) {
	b := newAttackBed(t, "hostile", false, true)
	saved := kernelSupport
	t.Cleanup(func() { kernelSupport = saved })
	kernelSupport = func() sandbox.Support { return sandbox.Support{LandlockError: "landlock unavailable: pretended"} }
	_, err := b.m.Describe(context.Background(), "hostile")
	if err == nil || !strings.Contains(err.Error(), "cannot confine it") || !strings.Contains(err.Error(), EnvAllowUnconfinedToolsets+"=1") {
		t.Fatalf("an unconfinable plugin started, or the refusal does not name the switch: %v", err)
	}
	t.Setenv(EnvAllowUnconfinedPackages, "1") // the packages' switch is not this one
	if _, err := b.m.Describe(context.Background(), "hostile"); err == nil {
		t.Fatal("the packages' switch let a plugin installed by path run unconfined")
	}
	t.Setenv(EnvAllowUnconfinedToolsets, "1")
	b.mustAllow(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "", "SECRET-KEY")
}

// TestAWritingToolsetPluginHoldsWhatACommandsSandboxHolds: besides git's
// hooks and configuration, a plugin that writes the workspace leaves
// alone what every sandboxed program finds read-only there
// (sandboxing.WorkspaceProtected: the clients' configuration, made or
// not, a program the repository's configuration names, and a file it
// includes, made or not) and what the
// host holds (Manager.SetHeld: the core's agent.yaml, the host's bin/ in
// a checkout), as a command's sandbox does: each is code or rules
// something other than this plugin runs or obeys.
func TestAWritingToolsetPluginHoldsWhatACommandsSandboxHolds(t *testing.T) {
	b := newAttackBed(t, "hostilew", false, true)
	for p, text := range map[string]string{
		".git/config":      "[core]\n\tpager = ./pager.sh\n[include]\n\tpath = ../conf/extra.cfg\n",
		"pager.sh":         "#!/bin/sh\n",
		"conf/keep":        "",
		".claude/keep":     "",
		"agent.yaml":       "name: a\n",
		"bin/demiurge":     "HOST",
		"sub/agent/x.yaml": "",
	} {
		if err := os.MkdirAll(filepath.Join(b.ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(b.ws, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.m.SetHeld([]string{filepath.Join(b.ws, "agent.yaml"), filepath.Join(b.ws, "bin")})
	b.mustAllow(t, "write", "sub/new", "", "")
	b.mustAllow(t, "write", "sub/agent/x.yaml", "", "")
	b.mustAllow(t, "write", "conf/keep", "", "") // conf/ is only listed: nothing new is made in it
	b.mustAllow(t, "read", "agent.yaml", "", "name: a")
	for _, p := range []string{".mcp.json", ".claude/settings.local.json", ".claude/settings.json", "pager.sh", "conf/extra.cfg", "agent.yaml", "bin/demiurge", "bin/new"} {
		b.mustRefuse(t, "write", p, "")
	}
	b.mustRefuse(t, "remove", "agent.yaml", "")
	if got, _ := os.ReadFile(filepath.Join(b.ws, "bin", "demiurge")); string(got) != "HOST" {
		t.Fatalf("the host's binary is now %q", got)
	}
}

// TestAToolsetPluginReadsNoSensitiveFileOfItsWorkspace: the workspace's
// .env and keys are hidden from the plugin as a command's sandbox hides
// them (the host asks before a tool reads one; a plugin opening one
// itself would pass that by), by name and through a link, whether it
// writes the workspace or not; the rest of the workspace it reads.
func TestAToolsetPluginReadsNoSensitiveFileOfItsWorkspace(t *testing.T) {
	for _, name := range []string{"hostile", "hostilew"} {
		t.Run(name, func(t *testing.T) {
			b := newAttackBed(t, name, false, true)
			for p, text := range map[string]string{".env": "API_KEY=DOTENV", "sub/deploy.pem": "PEM-KEY", "sub/.ssh/id_rsa": "SSH-KEY"} {
				if err := os.MkdirAll(filepath.Join(b.ws, filepath.Dir(p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(b.ws, p), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(".env", filepath.Join(b.ws, "envlink")); err != nil {
				t.Fatal(err)
			}
			b.mustAllow(t, "read", "file", "", "WS-FILE")
			b.mustAllow(t, "read", "sub/f", "", "WS-SUB")
			for _, p := range []string{".env", filepath.Join(b.ws, ".env"), "envlink", "sub/deploy.pem", "sub/.ssh/id_rsa", "sub/../.env"} {
				b.mustRefuse(t, "read", p, "")
			}
		})
	}
}

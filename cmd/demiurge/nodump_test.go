//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// The probe lists every demiurge process of its own user (and, from
// Python, the other authored workers) and tries to read its environ. A
// child of the command reads the command's environ: commands the terminal
// runs must stay dumpable (execve resets what the plugin set).
const shellProbe = `me=$(id -u)
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [ "$p" = "$$" ] && continue
  c=$(cat $d/comm 2>/dev/null) || continue
  case "$c" in demiurge*|python3*) ;; *) continue;; esac
  u=$(awk '/^Uid:/{print $2}' $d/status 2>/dev/null)
  [ "$u" = "$me" ] || continue
  a=$(tr '\0' ' ' < $d/cmdline 2>/dev/null | cut -c1-80)
  if head -c1 $d/environ >/dev/null 2>&1; then echo "PROBE $p $c readable $a"; else echo "PROBE $p $c denied $a"; fi
done
head -c1 /proc/self/environ >/dev/null 2>&1 && echo "SELF readable"
sh -c 'head -c1 /proc/$PPID/environ >/dev/null 2>&1 && echo "CHILD readable"'
`

const pythonProbe = `import os

def execute(ctx, args):
    me, out = os.getuid(), []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            comm = open("/proc/%s/comm" % p).read().strip()
            uid = [int(l.split()[1]) for l in open("/proc/%s/status" % p) if l.startswith("Uid:")][0]
        except (OSError, IndexError):
            continue
        if uid != me or not (comm.startswith("demiurge") or comm.startswith("python3")):
            continue
        try:
            open("/proc/%s/environ" % p, "rb").read(1)
            out.append("PROBE %s %s readable" % (p, comm))
        except OSError:
            out.append("PROBE %s %s denied" % (p, comm))
    import ctypes
    out.append("WORKER dumpable=%d" % ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
    # The control: this worker is non-dumpable (so even its own environ is
    # root's now), but a child it starts is dumpable again after execve.
    # Popen returns once exec began; the kernel makes the child dumpable a
    # moment later in the exec, so the read is retried for a while.
    import subprocess, time
    child = subprocess.Popen(["sleep", "30"])
    try:
        deadline = time.monotonic() + 5
        while True:
            try:
                open("/proc/%d/environ" % child.pid, "rb").read(1)
                out.append("SELF readable")
                break
            except OSError as e:
                if time.monotonic() > deadline:
                    out.append("SELF unreadable: %s" % e)
                    break
                time.sleep(0.02)
    finally:
        child.kill()
        child.wait()
    return "\n".join(out)
`

// TestHostAndPluginsAreNotDumpable: an approved terminal command and an
// authored tool, real child processes of the host's plugins, try to read
// the host's and every plugin's /proc/<pid>/environ, and cannot, while
// they read their own.
//
// As root the check is meaningless (CAP_SYS_PTRACE reads a non-dumpable
// process's environ, and a process of another user is refused anyway), so
// under root the host runs as nobody, and the probes with it.
func TestHostAndPluginsAreNotDumpable(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	root, err := os.MkdirTemp("", "demiurge-nodump-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for path, body := range map[string]string{
		"core/agent.yaml":                  "toolsets: [coding]\nslots: {tools: agent/tools}\ncapabilities: [fs.read, terminal.exec, tool.call:probe]\n",
		"core/agent/tools/probe/tool.yaml": "description: Probe.\ninput_schema: {type: object}\nrisk: low\ncapability: tool.call:probe\napproval_policy: prompt\n",
		"core/agent/tools/probe/module.py": pythonProbe,
		"ws/.keep":                         "",
		"home/.keep":                       "",
		"tmp/.keep":                        "",
	} {
		p := filepath.Join(root, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "state"), 0o700)
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		os.Chmod(root, 0o755)
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
	}
	call := func(tool, args string) string {
		t.Helper()
		// The probes run unconfined (--sandbox off): a sandboxed command has
		// a pid namespace of its own and sees no host process at all, and
		// non-dumpable is what still guards the host from an unconfined
		// command of the same user.
		sandboxMode := "off"
		cmd := exec.Command(bin, "--core", filepath.Join(root, "core"), "--state", filepath.Join(root, "state"), "--plugin-dir", builtin,
			"--workspace", filepath.Join(root, "ws"), "--sandbox", sandboxMode, "--approve", "allow:"+tool, "tools", "call", tool, args)
		// A TMPDIR of its own: go-plugin makes its sockets there, and the
		// shared /tmp need not be writable by nobody.
		cmd.Env = []string{"DEMIURGE_HOST=off", "HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/local/bin:/usr/bin:/bin", "DEMIURGE_NODUMP_CANARY=host-secret-canary"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", tool, err, out.String(), errb.String())
		}
		return out.String()
	}
	probe := regexp.MustCompile(`PROBE (\d+) (\S+) (readable|denied)[^\n]*`)
	for _, tc := range []struct {
		tool, args string
		want       []string // comm prefixes that must be seen, denied
	}{
		{"terminal", `{"command":` + quoteJSON(shellProbe) + `}`, []string{"demiurge-host", "demiurge-toolse"}},
		{"probe", `{}`, []string{"demiurge-host", "demiurge-toolse"}},
	} {
		out := call(tc.tool, tc.args)
		if !strings.Contains(out, "SELF readable") {
			t.Fatalf("%s: the probe cannot read its own environ, so it proves nothing:\n%s", tc.tool, out)
		}
		if tc.tool == "probe" && !strings.Contains(out, "WORKER dumpable=0") {
			t.Errorf("probe: the authored worker (the python bridge) is dumpable:\n%s", out)
		}
		if tc.tool == "terminal" && !strings.Contains(out, "CHILD readable") {
			t.Errorf("terminal: a child of the command cannot read the command's environ: commands must stay dumpable:\n%s", out)
		}
		seen := map[string]int{}
		for _, m := range probe.FindAllStringSubmatch(out, -1) {
			comm, verdict := m[2], m[3]
			if verdict == "readable" && strings.HasPrefix(comm, "demiurge") {
				t.Errorf("%s: read the environ of %s (pid %s): %s", tc.tool, comm, m[1], m[0])
			}
			seen[comm]++
		}
		for _, w := range tc.want {
			if seen[w] == 0 {
				t.Errorf("%s: the probe did not see a %s process to try: %v\n%s", tc.tool, w, seen, out)
			}
		}
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

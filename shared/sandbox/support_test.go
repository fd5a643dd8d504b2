package sandbox

import (
	"strings"
	"testing"
)

func support(abi int, seccomp, ns bool) Support {
	var s Support
	s.fromABI(abi)
	s.Seccomp, s.UserNS, s.MountNS, s.NetNS = seccomp, ns, ns, ns
	return s
}

// TestMissing: what each mode needs, and what is named when it lacks.
func TestMissing(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Support
		mode Mode
		want []string // substrings of the missing list; nil: nothing missing
	}{
		{"this kernel", support(7, true, true), WorkspaceWrite, nil},
		{"this kernel, read-only", support(7, true, true), ReadOnly, nil},
		{"off needs nothing", support(0, false, false), Off, nil},
		{"no landlock", support(0, true, true), ReadOnly, []string{"landlock filesystem rules", "truncate", "ioctl_dev", "signal scoping"}},
		{"ABI 3", support(3, true, true), WorkspaceWrite, []string{"ioctl_dev", "signal scoping"}},
		{"no seccomp", support(7, false, true), Network, []string{"seccomp"}},
		{"no namespaces", support(7, true, false), WorkspaceWrite, []string{"user and mount namespaces"}},
		{"no netns, ABI 3 offline", func() Support {
			s := support(6, true, true)
			s.NetNS = false
			s.TCPBind, s.TCPConnect = false, false
			return s
		}(), ReadOnly, []string{"TCP rules"}},
	} {
		got := c.s.Missing(c.mode)
		if len(c.want) == 0 && len(got) != 0 {
			t.Errorf("%s: missing %q, want nothing", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(strings.Join(got, "|"), w) {
				t.Errorf("%s: missing %q lacks %q", c.name, got, w)
			}
		}
		if _, err := c.s.Enforced(c.mode); (err != nil) != (len(c.want) > 0) {
			t.Errorf("%s: Enforced error %v", c.name, err)
		}
	}
}

func TestDecodePolicy(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"mode":"read-only","workspace":"/w","tmp_dir":"/t"}`, ""},
		{`{"mode":"read-only","workspace":"/w","tmp_dir":"/t","allow_all":true}`, "unknown field"},
		{`{"mode":"lax","workspace":"/w","tmp_dir":"/t"}`, "unknown mode"},
		{`{"mode":"read-only","workspace":"w","tmp_dir":"/t"}`, "absolute"},
		{`{"mode":"workspace-write","workspace":"/w","tmp_dir":"/t","protected":["rel"]}`, "absolute"},
		{``, "empty"},
	} {
		_, err := DecodePolicy(c.in)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("DecodePolicy(%s): %v, want %q", c.in, err, c.err)
		}
	}
}

func TestTighter(t *testing.T) {
	for _, c := range []struct{ a, b, want Mode }{
		{Off, ReadOnly, ReadOnly}, {Network, WorkspaceWrite, WorkspaceWrite}, {ReadOnly, Off, ReadOnly}, {Off, Off, Off},
	} {
		if got := Tighter(c.a, c.b); got != c.want {
			t.Errorf("Tighter(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

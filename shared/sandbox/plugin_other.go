//go:build !linux

package sandbox

// PluginPolicy confines a third-party plugin process; see plugin_linux.go.
type PluginPolicy struct {
	Private, Tmp, Binary string
	Egress               string
	Toolset              bool
	Workspace            string
	WorkspaceWrite       bool
	Hidden               []string
	Artifacts            string
	ReadOnly             []string
}

// PluginSystemPaths: see plugin_linux.go.
var PluginSystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// PluginMissing: nothing can confine a plugin here.
func PluginMissing(Support) []string { return []string{errNotLinux.Error()} }

// KernelSupport reports that nothing can be enforced here.
func KernelSupport() Support { return Detect("") }

// ConfinePluginThread refuses: the caller must not start the plugin.
func ConfinePluginThread(PluginPolicy, Support) error { return errNotLinux }

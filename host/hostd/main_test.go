package hostd

import (
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
)

// builtinDir holds the real built-in plugins the host under test runs.
var builtinDir string

func TestMain(m *testing.M) {
	if sock := os.Getenv("HOSTD_TEST_OTHER_USER_DIAL"); sock != "" {
		otherUserDial(sock, os.Getenv("HOSTD_TEST_TOKEN")) // the child of TestOtherUserRefused
		return
	}
	if state := os.Getenv("HOSTD_TEST_FAKE_HOST"); state != "" {
		fakeHost(state) // the child of TestAFrontEndTalksOnlyToItsOwnUsersHost
		return
	}
	tmp, err := os.MkdirTemp("", "hostd-plugins-")
	if err != nil {
		panic(err)
	}
	builtinDir = filepath.Join(tmp, "builtin")
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(plugintest.BuildOrCopy(builtinDir, "coding", "demiurge.dev/plugins/coding"))
	must(plugintest.BuildOrCopy(builtinDir, "demiurge_control", "demiurge.dev/plugins/control"))
	must(plugintest.PlaceSandboxHelper(builtinDir, sandboxing.HelperName))
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

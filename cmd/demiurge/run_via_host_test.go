package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"demiurge.dev/host/hostd"
)

// TestRunScriptsViaHost runs the headless run scripts again with the
// host on: each `demiurge run` is then a front end whose turn the
// state's long-lived host runs, and what the scripts check (events,
// exit codes, resumed conversations, background tasks) must hold as it
// does in process.
func TestRunScriptsViaHost(t *testing.T) {
	builtin, examples := testPlugins(t)
	testscript.Run(t, testscript.Params{
		Setup: func(env *testscript.Env) error {
			state := filepath.Join(env.WorkDir, ".state")
			env.Setenv("DEMIURGE_PLUGIN_DIR", builtin)
			env.Setenv("DEMIURGE_HOST", "on")
			env.Setenv("DEMIURGE_HOST_IDLE_EXIT", "2m")
			env.Setenv("EXAMPLES", examples)
			env.Setenv("DEMIURGE_STATE", state)
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Defer(func() { stopTestHost(state) })
			goEnv(env)
			depEnv(env)
			return mcpScriptEnv(env)
		},
		Cmds:                joinCmds(mcpScriptCmds(), modelCmds, scriptCmds, depCmds),
		Condition:           depCondition,
		RequireExplicitExec: true,
		Files:               runScriptsViaHost(t),
	})
}

// runScriptsViaHost are the run scripts that say nothing of the process
// they run in. (tasks.txtar is not among them since the interactive
// session from a pipe runs in the host: there its background tasks go on
// when it ends, host_pipe_session.txtar.)
func runScriptsViaHost(t *testing.T) []string {
	var files []string
	for _, name := range []string{"run_json", "run_json_detail", "run_conversation", "run_background", "run_bad",
		"run_core_model", "run_retry", "run_agents_md", "run_skills", "run_provider_state", "terminal_found_secrets", "subagents_delegate", "subagents_events", "subagents_authored", "session_model",
		"subagents_answer_untrusted", "subagents_audit_chain", "subagents_core_host_credentials"} {
		files = append(files, filepath.Join("testdata/script", name+".txtar"))
	}
	return files
}

// stopTestHost ends the host a script started, and waits until it has
// let go of the state.
func stopTestHost(state string) {
	pid, running := hostd.Running(state)
	if !running {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, still := hostd.Running(state); !still {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

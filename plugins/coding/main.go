// Command demiurge-toolset-coding is the built-in coding toolset: the file
// tools read_file, write_file, patch and search_files over the workspace,
// web_extract and terminal, and the conversation tools todo, clarify and
// session_search (clients of the host's HostServices). The tools over the background tasks a terminal
// call starts live in the demiurge_control toolset (plugins/control). The
// other coding tools join in later issues; a tool is listed here only once
// it works.
package main

import (
	"fmt"
	"os"

	"demiurge.dev/plugins/coding/terminal"
	"demiurge.dev/sdk"
)

// Version is the toolset's semver.
const Version = "0.1.0"

func main() {
	// The plugin and its reaper copy alike: no command of the same user
	// may read their environment or memory, or ptrace them.
	if err := sdk.NonDumpable(); err != nil {
		fmt.Fprintf(os.Stderr, "toolset coding: make the process non-dumpable: %v\n", err)
		os.Exit(1)
	}
	// A copy of this binary is the terminal's reaper: it ends the command
	// trees if this process is killed outright.
	terminal.MaybeRunReaper()
	runner := terminal.NewRunner()
	// /proc/self/exe, never a path: the host runs this plugin from a
	// sealed in-memory image of its verified bytes, which has no path.
	runner.ReaperExe = "/proc/self/exe"
	sdk.Serve(sdk.Toolset{Name: "coding", Version: Version, Tools: func() []sdk.Tool { return toolsWith(runner) }})
	// Serve returns when the host stops the plugin: no command outlives it.
	runner.Shutdown()
}

// Tools is the toolset's constructor list with a terminal runner of its own.
func Tools() []sdk.Tool { return toolsWith(terminal.NewRunner()) }

// toolsWith is the toolset's one constructor list; runner owns the process
// trees of terminal calls.
func toolsWith(runner *terminal.Runner) []sdk.Tool {
	return []sdk.Tool{
		newReadFile(),
		newWriteFile(),
		newPatch(),
		newSearchFiles(),
		newWebExtract(),
		newTerminal(runner),
		newSkillsList(),
		newSkillView(),
		newSkillManage(),
		newTodo(),
		newClarify(),
		newSessionSearch(),
	}
}

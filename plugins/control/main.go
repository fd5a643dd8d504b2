// Command demiurge-toolset-demiurge_control is the built-in
// demiurge_control toolset: tools_list over the calling turn's resolved
// catalog, search_capabilities over the session's deferred tools, and task_status, task_control, yield_until and task_list over
// the background tasks the host runs for the calling turn.
// and delegate_task, which asks the host's spawn gate for a child agent,
// and rollback_core and evolve_core, which the host runs against the core
// repository.
package main

import "demiurge.dev/sdk"

// Version is the toolset's semver.
const Version = "0.1.0"

func main() {
	sdk.Serve(sdk.Toolset{Name: "demiurge_control", Version: Version, Tools: Tools})
}

// Tools is the toolset's one constructor list.
func Tools() []sdk.Tool {
	return []sdk.Tool{
		newToolsList(),
		newTaskStatus(),
		newTaskControl(),
		newYieldUntil(),
		newTaskList(),
		newSearchCapabilities(),
		newDelegateTask(),
		newRollbackCore(),
		newEvolveCore(),
	}
}

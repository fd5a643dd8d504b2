// Command demiurge-toolset-schedule is the built-in schedule toolset:
// schedule_manage, a thin client of the long-lived host's scheduler,
// which owns the schedules, checks every request and runs them.
package main

import "demiurge.dev/sdk"

// Version is the toolset's semver.
const Version = "0.1.0"

func main() {
	sdk.Serve(sdk.Toolset{Name: "schedule", Version: Version, Tools: Tools})
}

// Tools is the toolset's one constructor list.
func Tools() []sdk.Tool {
	return []sdk.Tool{newScheduleManage()}
}

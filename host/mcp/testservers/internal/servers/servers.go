// Package servers holds the failure-case MCP test servers. Each has a
// command of its own under host/mcp/testservers/<name>; the tests build
// the one binary under all/ and call it by each name (a link), which links
// once instead of once per server.
package servers

// ByName maps each server's command name to its main function.
var ByName = map[string]func(){
	"echo": Echo, "hang_init": HangInit, "crash_list": CrashList, "bad_name": BadName,
	"huge_list": HugeList, "garbage_stdout": GarbageStdout, "never_returns": NeverReturns,
	"changing_list": ChangingList, "scripted": Scripted, "progress": Progress, "elicit": Elicit,
}

package main

import (
	"cmp"
	"slices"
)

// The CLI's one order for lists (README, "Lists"): things that have a
// name (tools, plugins, packages, MCP servers, cores, approval rules) by
// name; things that happened (sessions, tasks, child agents, audit
// events) by when they began, oldest first, so the newest is printed
// last, next to the prompt. JSON output keeps the same order.

// byName sorts xs by name, then keeps equal names in their order.
func byName[T any](xs []T, name func(T) string) {
	slices.SortStableFunc(xs, func(a, b T) int { return cmp.Compare(name(a), name(b)) })
}

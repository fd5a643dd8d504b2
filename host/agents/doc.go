// Package agents is the host's one spawn gate: delegate_task (and, later,
// ctx.agents.run/spawn, scheduled runs and the evolver) start a child
// agent only through Gate.Spawn. The gate derives the child's authority
// from its parent's and only narrows it (toolhost.Session.Delegate: tools,
// capabilities), counts depth, children running per root session,
// children per turn and the child's budget (steps, output tokens, wall
// time) in one place, and records the child as an agent.spawn task of the
// parent's session. It runs the child's turn in the process that runs the
// parent's, whatever front end (in process or host/hostd) asked.
package agents

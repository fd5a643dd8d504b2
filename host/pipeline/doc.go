// Package pipeline runs the stages of a core's pipelines.yaml around a
// model turn: the bootstrap stage once per session (RunBootstrap: the
// built-in project_instructions and authored slots, into the session's
// bootstrap snapshot), and the input and output stages around every turn
// (RunStage). Authored slots run through an Invoker, which the host
// implements with the authored runtime in the sandbox under the session's
// authority (toolhost.Host.SlotInvoker); an Invoker that is also a
// Recorder is told of every run, for the audit log.
package pipeline

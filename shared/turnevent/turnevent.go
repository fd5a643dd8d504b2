// Package turnevent is the wire form of a turn's events: what `run
// --json` prints (docs/json-events.md) and what the host streams to a
// front end as the JSON of hostv1's HostMessage.event. It sits in shared,
// beside hostv1, so that the light front end and host packages the import
// rules keep away from the loop (host/approval, host/providers) read it
// without linking host/turn or the model adapters; host/turn,
// host/providers and host/approval alias these types.
package turnevent

// EventKind names one event of a turn. The names are the "type" field of
// `demiurge run --json`.
type EventKind string

const (
	EventTurnStart  EventKind = "turn_start"
	EventTextDelta  EventKind = "text_delta"
	EventToolCall   EventKind = "tool_call"
	EventApproval   EventKind = "approval"
	EventToolResult EventKind = "tool_result"
	EventUsage      EventKind = "usage"
	EventNotice     EventKind = "notice"
	EventTurnEnd    EventKind = "turn_end"
)

// EventSchemaVersion is the version of the `run --json` event format
// (docs/json-events.md): 2 added init, retry and result, and the
// structured fields of tool_call and tool_result. Fields are only added
// within a version; a removal or a change of meaning raises it.
const EventSchemaVersion = 2

const (
	// EventInit opens a run: the session, the model, the tools, the
	// sandbox mode and the version. The front end sends it (the loop
	// knows neither the version nor the sandbox report).
	EventInit EventKind = "init"
	// EventRetry: a model step's try failed and another follows.
	EventRetry EventKind = "retry"
	// EventResult closes a run: its status, steps, duration and usage.
	EventResult EventKind = "result"
)

// Event is what a front end is shown. Text fields hold operator views
// (redacted); nothing here is ever a secret.
type Event struct {
	Type    EventKind `json:"type"`
	Session string    `json:"session"`
	Turn    string    `json:"turn"`
	// Text is a text delta or a notice.
	Text string `json:"text,omitempty"`
	// CallID and Tool name a tool call; Card is its operator card view.
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Card   string `json:"card,omitempty"`
	// Decision is an approval's verdict (auto, allowed, denied, blocked).
	Decision string `json:"decision,omitempty"`
	// Result is a tool result's operator view.
	Result  string `json:"result,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	Usage   *Usage `json:"usage,omitempty"`
	// Status ends a turn: done, failed, cancelled, step_cap.
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Agent and ParentAgent tag a child agent's event with its session id
	// and its parent's (empty for the front end's own session's events),
	// so that a front end can render a tree.
	Agent       string `json:"agent,omitempty"`
	ParentAgent string `json:"parent_agent,omitempty"`
	EventDetail
}

// EventDetail holds the fields added in schema 2; Event embeds it, so
// they appear flat in the JSON.
type EventDetail struct {
	// SchemaVersion (init): EventSchemaVersion.
	SchemaVersion int `json:"schema_version,omitempty"`
	// Args (tool_call): the arguments, redacted as the card is (secret
	// fields and values replaced), each string cut at 300 bytes.
	Args map[string]any `json:"args,omitempty"`
	// CallStatus (tool_result): dispatch's status of the call: ok,
	// denied, blocked, tool_error, invalid_arguments, ...
	CallStatus string `json:"call_status,omitempty"`
	// ExitCode (tool_result): a command's exit code, when the call ran
	// one; non-zero makes is_error true.
	ExitCode *int `json:"exit_code,omitempty"`
	// Try, Of and WaitMS (retry): the try that follows, of at most Of,
	// after WaitMS; Text says why the last one failed.
	Try    int   `json:"try,omitempty"`
	Of     int   `json:"of,omitempty"`
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Model, Tools, Sandbox and Version (init).
	Model   string   `json:"model,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	Sandbox string   `json:"sandbox,omitempty"`
	Version string   `json:"version,omitempty"`
	// Steps and DurationMS (result); Usage is the run's total there.
	Steps      int   `json:"steps,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Edit (tool_result): what a file write that ran (write_file, patch)
	// did to its workspace file: the whole text before and after, redacted,
	// each within MaxEditText (host/approval) (none beyond, or outside the
	// workspace, or for a credential-like path). Args are cut at 300
	// bytes; this is the change in full, for a front end's diff.
	Edit *FileEdit `json:"edit,omitempty"`
}

// Usage is the provider's token count of one step.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	// CacheWriteTokens is input written to the provider's prompt cache
	// this step (Anthropic's cache_creation_input_tokens), counted in
	// InputTokens too.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// FileEdit is what a file write (write_file, patch) does to its file, for
// a front end that shows the change as a diff (an editor over ACP): the
// whole text before and after, both redacted (credential formats and the
// call's secrets replaced). The host fills it only for a path inside the
// workspace that is not sensitive, and only when both texts are within
// MaxEditText; otherwise there is none and the card's preview stands.
type FileEdit struct {
	// Path is the file's absolute real path.
	Path string `json:"path"`
	// OldText is the file's text before the write; NewFile says there
	// was no file (OldText is then empty).
	OldText string `json:"old_text"`
	NewFile bool   `json:"new_file,omitempty"`
	// NewText is the file's text once the write is made.
	NewText string `json:"new_text"`
}

package frontview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"demiurge.dev/host/runtime"
	"demiurge.dev/host/termtext"
)

// SessionEntry is one line of `sessions list`.
type SessionEntry struct {
	ID       string    `json:"id"`
	Created  time.Time `json:"created"`
	Messages uint64    `json:"messages"`
	Title    string    `json:"title"`
}

// SessionTitle is a conversation's title in `sessions list`: its first
// prompt on one line, inert and short.
func SessionTitle(firstText string) string {
	return termtext.Printable(strings.Join(strings.Fields(firstText), " "), 60)
}

// NoConversations is what `sessions list` says, and `sessions show last`
// fails with, when there are none.
const NoConversations = "no conversations yet; 'demiurge run PROMPT' starts one"

// Sessions is `demiurge sessions list`: the conversations oldest first,
// as JSON or a table.
func Sessions(w io.Writer, entries []SessionEntry, asJSON bool) error {
	OldestFirst(entries, func(e SessionEntry) time.Time { return e.Created }, func(e SessionEntry) string { return e.ID })
	if asJSON {
		if entries == nil {
			entries = []SessionEntry{}
		}
		return WriteJSON(w, entries)
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, NoConversations)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tMESSAGES\tFIRST PROMPT")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", e.ID, e.Created.Local().Format(time.DateTime), e.Messages, termtext.Printable(e.Title, 200))
	}
	return tw.Flush()
}

// The stored shapes of a message's calls and results (the model view the
// host records, host/providers ToolCall and ToolResult): only what is
// printed, read without the providers package (and its model SDKs).
type (
	storedCall struct {
		Name string `json:"name"`
		Args string `json:"args"`
	}
	storedResult struct {
		Name    string `json:"name"`
		Content string `json:"content"`
		IsError bool   `json:"is_error,omitempty"`
	}
)

// Conversation is `demiurge sessions show`: stored model views, what was
// said, the calls and a line of each result (redacted before they were
// stored), or the records as JSON.
func Conversation(w io.Writer, msgs []runtime.MessageRecord, asJSON bool) error {
	if asJSON {
		if msgs == nil {
			msgs = []runtime.MessageRecord{}
		}
		return WriteJSON(w, msgs)
	}
	for _, m := range msgs {
		switch {
		case m.Summary:
			fmt.Fprintf(w, "[summary of messages through %d]\n%s\n", m.Covers, termtext.Printable(m.Text, 1<<20))
		case m.Role == "user":
			fmt.Fprintf(w, "you: %s\n", termtext.Printable(m.Text, 1<<20))
		case m.Role == "assistant":
			if m.Text != "" {
				fmt.Fprintf(w, "agent: %s\n", termtext.Printable(m.Text, 1<<20))
			}
			var calls []storedCall
			_ = json.Unmarshal(m.ToolCalls, &calls)
			for _, tc := range calls {
				fmt.Fprintf(w, "→ %s %s\n", termtext.Printable(tc.Name, 80), termtext.Printable(tc.Args, 200))
			}
		case m.Role == "tool":
			var results []storedResult
			_ = json.Unmarshal(m.ToolResults, &results)
			for _, r := range results {
				mark := "✓"
				if r.IsError || CommandFailed(r.Content) {
					mark = "✗"
				}
				line, _, _ := strings.Cut(r.Content, "\n")
				fmt.Fprintf(w, "  %s %s: %s (%d bytes)\n", mark, termtext.Printable(r.Name, 80), termtext.Printable(line, 120), len(r.Content))
			}
		}
	}
	return nil
}

// CommandFailed: a stored model view of a command's result (the
// terminal's {"exit_code": N, ...}) whose command exited non-zero.
func CommandFailed(content string) bool {
	var v struct {
		ExitCode *int `json:"exit_code"`
	}
	return json.Unmarshal([]byte(content), &v) == nil && v.ExitCode != nil && *v.ExitCode != 0
}

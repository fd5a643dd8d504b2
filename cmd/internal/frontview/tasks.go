package frontview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"demiurge.dev/host/egress"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/termtext"
)

// Tasks is `demiurge tasks list`: the tasks oldest first (the CLI's order
// for things that happened), as JSON or a table.
func Tasks(w io.Writer, ts []runtime.Task, asJSON bool) error {
	OldestFirst(ts, func(t runtime.Task) time.Time { return t.Created }, func(t runtime.Task) string { return t.ID })
	if asJSON {
		if ts == nil {
			ts = []runtime.Task{}
		}
		return WriteJSON(w, ts)
	}
	return taskTable(w, ts)
}

// Task is one task as `tasks show` (timedOut nil) and `tasks wait` print it.
func Task(w io.Writer, t runtime.Task, timedOut *bool, asJSON bool) error {
	if asJSON {
		return WriteJSON(w, taskJSON(t, timedOut))
	}
	return taskDetail(w, t, timedOut)
}

// TaskLogChunk prints one chunk of `tasks logs`: raw data (control
// characters made inert) or one JSON object. Before the first chunk
// printed it tells errw when earlier chunks were dropped from the log.
func TaskLogChunk(w, errw io.Writer, c runtime.LogChunk, first, asJSON bool) error {
	if first && c.Seq > 1 {
		fmt.Fprintf(errw, "demiurge: the first %d chunk(s) were dropped from the log; the task's artifact holds the whole output\n", c.Seq-1)
	}
	if asJSON {
		return WriteJSON(w, struct {
			Seq    uint64    `json:"seq"`
			Stream string    `json:"stream"`
			Time   time.Time `json:"time"`
			Data   string    `json:"data"`
		}{c.Seq, c.Stream, c.Time, string(c.Data)})
	}
	_, err := io.WriteString(w, termtext.Printable(string(c.Data), 4*len(c.Data)+16))
	return err
}

// OldestFirst sorts xs by when each began, then by id.
func OldestFirst[T any](xs []T, began func(T) time.Time, id func(T) string) {
	slices.SortStableFunc(xs, func(a, b T) int {
		if c := began(a).Compare(began(b)); c != 0 {
			return c
		}
		return cmp.Compare(id(a), id(b))
	})
}

// taskJSON is a task with timed_out beside it when a wait asked.
func taskJSON(t runtime.Task, timedOut *bool) any {
	if timedOut == nil {
		return t
	}
	return struct {
		runtime.Task
		TimedOut bool `json:"timed_out"`
	}{t, *timedOut}
}

func taskTable(w io.Writer, ts []runtime.Task) error {
	if len(ts) == 0 {
		_, err := fmt.Fprintln(w, "no tasks")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tRC\tREASON\tCREATED\tTOOL\tCOMMAND")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.State, ReturnCode(t), Dash(t.ExitReason),
			t.Created.Local().Format("2006-01-02 15:04:05"), t.Tool, termtext.Printable(oneLine(t.Summary), 60))
	}
	return tw.Flush()
}

func taskDetail(w io.Writer, t runtime.Task, timedOut *bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "task       %s\n", t.ID)
	fmt.Fprintf(&b, "state      %s", t.State)
	if timedOut != nil && *timedOut {
		b.WriteString(" (timed_out: still running when the wait ended)")
	}
	fmt.Fprintf(&b, "\ntool       %s\ncommand    %s\n", t.Tool, termtext.Printable(oneLine(t.Summary), 200))
	fmt.Fprintf(&b, "sandbox    %s\n", Dash(t.Sandbox))
	fmt.Fprintf(&b, "rc         %s\nreason     %s\n", ReturnCode(t), Dash(t.ExitReason))
	fmt.Fprintf(&b, "session    %s\ncreated    %s\n", t.Session, t.Created.Local().Format(time.DateTime))
	if !t.Ended.IsZero() && !t.Started.IsZero() {
		fmt.Fprintf(&b, "duration   %s\n", t.Ended.Sub(t.Started).Round(time.Millisecond))
	}
	if t.ResultRef != "" {
		fmt.Fprintf(&b, "result     %s\n", t.ResultRef)
	}
	fmt.Fprintf(&b, "log        %d chunk(s)\n", t.LogChunks)
	taskNetwork(&b, t.Network)
	for _, name := range []string{"stdout", "stderr"} {
		st, ok := t.Streams[name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "── %s: %d bytes, %d chars", name, st.Bytes, st.Chars)
		if st.Truncated {
			b.WriteString(", tail only")
		}
		fmt.Fprintf(&b, "\n%s", termtext.Printable(lastLines(st.Tail, shownTailLines), 4000))
		if st.Tail != "" && !strings.HasSuffix(st.Tail, "\n") {
			b.WriteString("\n")
		}
	}
	if t.Result != "" && (t.State != runtime.TaskSucceeded || len(t.Streams) == 0) {
		fmt.Fprintf(&b, "── result\n%s\n", termtext.Printable(strings.TrimRight(t.Result, "\n"), 2000))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// taskConnection is one connection a network-mode task made through the
// host's egress proxy, as the dispatcher recorded it.
type taskConnection struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Addr    string `json:"addr"`
	Sent    int64  `json:"bytes_sent"`
	Recv    int64  `json:"bytes_received"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Kind    string `json:"kind"`
	// Folded (kind "folded", the last entry) sums the connections past
	// those the proxy kept in full (egress.Folded).
	Folded *egress.Folded `json:"folded"`
}

// taskNetwork adds a task's connections to `tasks show`: one line
// each, host:port, the address dialled, bytes each way and the verdict.
func taskNetwork(b *strings.Builder, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var conns []taskConnection
	if err := json.Unmarshal(raw, &conns); err != nil {
		fmt.Fprintf(b, "network    (unreadable: %v)\n", err)
		return
	}
	total := len(conns)
	for _, c := range conns {
		if c.Folded != nil {
			total += c.Folded.Count - 1
		}
	}
	fmt.Fprintf(b, "network    %d connection(s) through the egress proxy\n", total)
	for _, c := range conns {
		if f := c.Folded; f != nil {
			line := fmt.Sprintf("  and %d more, folded: %d bytes sent, %d received;", f.Count, f.Sent, f.Recv)
			for _, h := range f.Hosts {
				line += fmt.Sprintf(" %s:%d ×%d", h.Host, h.Port, h.Count)
			}
			if f.Others > 0 {
				line += fmt.Sprintf(" and %d to other hosts", f.Others)
			}
			b.WriteString(termtext.Printable(line, 600) + "\n")
			continue
		}
		line := fmt.Sprintf("  %s %s:%d", c.Verdict, c.Host, c.Port)
		if c.Addr != "" {
			line += " via " + c.Addr
		}
		line += fmt.Sprintf(", %d bytes sent, %d received", c.Sent, c.Recv)
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		b.WriteString(termtext.Printable(line, 300) + "\n")
	}
}

// ReturnCode is a task's return code, "-" when it has none.
func ReturnCode(t runtime.Task) string {
	if t.ReturnCode == nil {
		return "-"
	}
	return fmt.Sprint(*t.ReturnCode)
}

// shownTailLines is how much of a tail `tasks show` prints; --json and
// `tasks logs` have all of it.
const shownTailLines = 20

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	end := len(strings.TrimRight(s, "\n"))
	i := end
	for range n {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

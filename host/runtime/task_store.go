package runtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Log bounds: a stored chunk holds at most MaxLogChunk bytes, and a task
// keeps its newest MaxLogChunks chunks (16 MiB); the whole output is in the
// task's artifact.
const (
	MaxLogChunk  = 16 << 10
	MaxLogChunks = 1024
)

// Event kinds the task machinery writes beside the task record, in the
// same transaction.
const (
	EventKindTaskFinished = "task.finished"
	EventKindTaskLost     = "task.lost"
	// EventKindAgentStarted is a child agent's start (a task with agent
	// metadata, agent.spawn): the child's session beside its parent's,
	// its root's, its depth and core, so the audit log names the
	// delegation chain of every call a child makes (stop 50).
	EventKindAgentStarted = "agent.started"
)

// LogChunk is one stored piece of a task's output, already redacted.
type LogChunk struct {
	Seq    uint64    `json:"seq"`
	Stream string    `json:"stream"`
	Time   time.Time `json:"time"`
	Data   []byte    `json:"data"`
}

// update commits apply in the writer's next group and returns once it is on
// disk. ctx bounds only the wait for a place in the queue.
func (s *Store) update(ctx context.Context, apply func(tx *bolt.Tx) error) error {
	req := &appendReq{apply: apply, done: make(chan struct{})}
	if err := s.enqueue(ctx, req); err != nil {
		return err
	}
	<-req.done
	return req.err
}

func putTask(b *bolt.Bucket, t *Task) error {
	v, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	return b.Put([]byte(t.ID), v)
}

func getTask(b *bolt.Bucket, id string) (*Task, error) {
	v := b.Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	var t Task
	if err := json.Unmarshal(v, &t); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", id, err)
	}
	return &t, nil
}

// putEvent writes an event inside a task transaction, so that a task's
// terminal state and its audit event land together.
func putEvent(tx *bolt.Tx, ev Event) error {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	v, err := encodeEvent(ev)
	if err != nil {
		return err
	}
	b := tx.Bucket([]byte(BucketEvents))
	b.FillPercent = 1.0 // keys only grow: see commit (append.go)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	return b.Put(seqKey(seq), v)
}

// createTask makes t durable.
func (s *Store) createTask(ctx context.Context, t Task, sessions ...SessionRecord) error {
	recs := make([][2][]byte, len(sessions))
	for i, rec := range sessions {
		v, err := encodeSession(rec)
		if err != nil {
			return err
		}
		recs[i] = [2][]byte{[]byte(rec.ID), v}
	}
	err := s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketTasks))
		if b.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("task id %s is taken", t.ID)
		}
		sb := tx.Bucket([]byte(BucketSessions))
		for _, kv := range recs {
			if sb.Get(kv[0]) != nil {
				continue // the first record of an id wins
			}
			if err := sb.Put(kv[0], kv[1]); err != nil {
				return err
			}
		}
		if len(t.Agent) > 0 {
			if err := putEvent(tx, agentStartEvent(&t)); err != nil {
				return err
			}
		}
		return putTask(b, &t)
	})
	if err != nil {
		return fmt.Errorf("record task %s: %w", t.ID, err)
	}
	return nil
}

// markRunning records that a queued task started.
func (s *Store) markRunning(ctx context.Context, id string, started time.Time) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketTasks))
		t, err := getTask(b, id)
		if err != nil || t == nil || t.State != TaskQueued {
			return err
		}
		t.State, t.Started = TaskRunning, started
		return putTask(b, t)
	})
}

// finishTask writes a task's terminal record and its audit event in one
// transaction. A task already terminal (marked lost by a recovery that
// raced it) is left as it is; written says which happened.
func (s *Store) finishTask(ctx context.Context, final Task) (written bool, err error) {
	err = s.update(ctx, func(tx *bolt.Tx) error {
		written = false
		b := tx.Bucket([]byte(BucketTasks))
		cur, err := getTask(b, final.ID)
		if err != nil {
			return err
		}
		if cur != nil && cur.State.Terminal() {
			return nil
		}
		if err := putTask(b, &final); err != nil {
			return err
		}
		written = true
		return putEvent(tx, taskEvent(EventKindTaskFinished, &final))
	})
	if err != nil {
		return false, fmt.Errorf("record the end of task %s: %w", final.ID, err)
	}
	return written, nil
}

// taskEvent is the audit event of a task's end: metadata and counts, no
// output.
func taskEvent(kind string, t *Task) Event {
	data := map[string]any{
		"task_id": t.ID, "state": string(t.State), "exit_reason": t.ExitReason,
		"log_chunks": int64(t.LogChunks),
	}
	if t.ReturnCode != nil {
		data["return_code"] = *t.ReturnCode
	}
	if !t.Started.IsZero() && !t.Ended.IsZero() {
		data["duration_ms"] = t.Ended.Sub(t.Started).Milliseconds()
	}
	streams := map[string]any{}
	for name, st := range t.Streams {
		streams[name] = map[string]any{"bytes": st.Bytes, "chars": st.Chars, "truncated": st.Truncated}
	}
	if len(streams) > 0 {
		data["streams"] = streams
	}
	if a, ok := agentOf(t); ok {
		data["agent"] = a.AgentID
	}
	body, _ := MarshalData(data) // only strings, integers, booleans and maps of them
	return Event{Time: t.Ended, Kind: kind, Session: t.Session, Tool: t.Tool, CallID: t.CallID, Data: body}
}

// taskAgent is what the audit names of a child agent's task metadata
// (agentmeta.Meta's fields; never its goal).
type taskAgent struct {
	AgentID string `json:"agent_id"`
	Parent  string `json:"parent"`
	Root    string `json:"root"`
	Depth   int    `json:"depth"`
	Core    string `json:"core"`
}

func agentOf(t *Task) (taskAgent, bool) {
	var a taskAgent
	if len(t.Agent) == 0 || json.Unmarshal(t.Agent, &a) != nil {
		return a, false
	}
	return a, true
}

// agentStartEvent is a child agent's agent.started event, in its
// parent's session: the child's session id with its parent's, root's,
// depth and core. Metadata that does not read says so rather than
// leaving the chain out.
func agentStartEvent(t *Task) Event {
	data := map[string]any{"task_id": t.ID}
	if a, ok := agentOf(t); ok {
		data["agent"], data["parent"], data["root"], data["depth"], data["core"] = a.AgentID, a.Parent, a.Root, int64(a.Depth), a.Core
	} else {
		data["agent"] = "unreadable metadata"
	}
	body, _ := MarshalData(data)
	return Event{Time: t.Created, Kind: EventKindAgentStarted, Session: t.Session, Tool: t.Tool, CallID: t.CallID, Data: body}
}

// appendLogs stores a batch of chunks (in Seq order) and drops chunks that
// fell out of the newest MaxLogChunks.
func (s *Store) appendLogs(ctx context.Context, id string, batch []LogChunk) error {
	if len(batch) == 0 {
		return nil
	}
	err := s.update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.Bucket([]byte(BucketTaskLogs)).CreateBucketIfNotExists([]byte(id))
		if err != nil {
			return err
		}
		for _, c := range batch {
			if err := b.Put(seqKey(c.Seq), encodeChunk(c)); err != nil {
				return err
			}
		}
		last := batch[len(batch)-1].Seq
		if last <= MaxLogChunks {
			return nil
		}
		cut := seqKey(last - MaxLogChunks)
		var old [][]byte
		c := b.Cursor()
		for k, _ := c.First(); k != nil && bytes.Compare(k, cut) <= 0; k, _ = c.Next() {
			old = append(old, slices.Clone(k))
		}
		for _, k := range old {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write %d log chunk(s) of task %s: %w", len(batch), id, err)
	}
	return nil
}

// A chunk is stored as: stream name length (1 byte), stream name, time in
// Unix nanoseconds (8 bytes), data.
func encodeChunk(c LogChunk) []byte {
	name := c.Stream
	if len(name) > 255 {
		name = name[:255]
	}
	v := make([]byte, 0, 1+len(name)+8+len(c.Data))
	v = append(v, byte(len(name)))
	v = append(v, name...)
	v = binary.BigEndian.AppendUint64(v, uint64(c.Time.UnixNano()))
	return append(v, c.Data...)
}

func decodeChunk(k, v []byte) (LogChunk, error) {
	if len(k) != 8 || len(v) < 1 || len(v) < 1+int(v[0])+8 {
		return LogChunk{}, fmt.Errorf("damaged log chunk (key %x, %d bytes)", k, len(v))
	}
	n := int(v[0])
	return LogChunk{
		Seq:    binary.BigEndian.Uint64(k),
		Stream: string(v[1 : 1+n]),
		Time:   time.Unix(0, int64(binary.BigEndian.Uint64(v[1+n:9+n]))).UTC(),
		Data:   slices.Clone(v[9+n:]),
	}, nil
}

// RecoverTasks marks every task that is neither finished nor owned by a
// live manager as lost: the store is locked by one process, so a task still
// queued or running when it is opened belonged to a host that died.
func (s *Store) RecoverTasks(ctx context.Context) ([]Task, error) {
	var lost []Task
	now := time.Now().UTC()
	err := s.update(ctx, func(tx *bolt.Tx) error {
		lost = lost[:0]
		b := tx.Bucket([]byte(BucketTasks))
		err := b.ForEach(func(k, v []byte) error {
			var t Task
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("decode task %s: %w", k, err)
			}
			if !t.State.Terminal() {
				lost = append(lost, t)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i := range lost {
			t := &lost[i]
			t.State, t.ExitReason, t.Ended, t.ReturnCode = TaskLost, ExitReasonLost, now, nil
			if err := putTask(b, t); err != nil {
				return err
			}
			if err := putEvent(tx, taskEvent(EventKindTaskLost, t)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recover tasks in %s: %w", s.path, err)
	}
	return lost, nil
}

// Task returns one task in scope; a task outside it is ErrTaskNotFound,
// exactly like a missing one.
func (s *Store) Task(scope TaskScope, id string) (Task, error) {
	var out Task
	err := s.view(func(tx *bolt.Tx) error {
		t, err := getTask(tx.Bucket([]byte(BucketTasks)), id)
		if err != nil {
			return err
		}
		if t == nil || !scope.owns(t) {
			return notFound(id)
		}
		out = *t
		return nil
	})
	return out, err
}

// Tasks lists the tasks in scope, newest first.
func (s *Store) Tasks(scope TaskScope) ([]Task, error) {
	out, err := scanRecords(s, BucketTasks, "task", scope.owns)
	slices.SortFunc(out, func(a, b Task) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	})
	return out, err
}

// TaskLogs returns up to limit (0: all) stored chunks of a task in scope
// with Seq > after.
func (s *Store) TaskLogs(scope TaskScope, id string, after uint64, limit int) ([]LogChunk, error) {
	var out []LogChunk
	err := s.view(func(tx *bolt.Tx) error {
		t, err := getTask(tx.Bucket([]byte(BucketTasks)), id)
		if err != nil {
			return err
		}
		if t == nil || !scope.owns(t) {
			return notFound(id)
		}
		b := tx.Bucket([]byte(BucketTaskLogs)).Bucket([]byte(id))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(seqKey(after + 1)); k != nil; k, v = c.Next() {
			ch, err := decodeChunk(k, v)
			if err != nil {
				return fmt.Errorf("task %s: %w", id, err)
			}
			out = append(out, ch)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		return nil
	})
	return out, err
}

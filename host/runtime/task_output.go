package runtime

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// TaskOutput is where a running task sends its output and artifacts.
type TaskOutput struct {
	m  *TaskManager
	lt *liveTask
}

// Write adds redacted output of one stream: it is counted into the
// stream's statistics and stored in bounded chunks.
func (o *TaskOutput) Write(stream string, data []byte) error {
	lt := o.lt
	lt.mu.Lock()
	if lt.sealed == TaskFailed && lt.sealReason == ExitReasonLogFailed {
		lt.mu.Unlock()
		return errors.New("task output can no longer be stored")
	}
	acc := lt.streams[stream]
	if acc == nil {
		if len(lt.streams) >= maxStreams {
			lt.mu.Unlock()
			return fmt.Errorf("a task may write at most %d streams", maxStreams)
		}
		acc = &streamAcc{}
		lt.streams[stream] = acc
	}
	acc.add(data)
	now := time.Now().UTC()
	for len(data) > 0 {
		n := min(len(data), MaxLogChunk)
		lt.seq++
		lt.pending = append(lt.pending, LogChunk{Seq: lt.seq, Stream: stream, Time: now, Data: slices.Clone(data[:n])})
		lt.pendingLen += n
		data = data[n:]
	}
	full := lt.pendingLen >= maxPending
	lt.mu.Unlock()
	if full {
		return o.m.flush(lt)
	}
	return nil
}

// Artifact records an artifact of the task; the first is its result_ref.
// ref must already be the opaque, host-checked reference.
func (o *TaskOutput) Artifact(ref string) {
	lt := o.lt
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if !slices.Contains(lt.task.Artifacts, ref) && len(lt.task.Artifacts) < maxStreams {
		lt.task.Artifacts = append(lt.task.Artifacts, ref)
	}
	if lt.task.ResultRef == "" {
		lt.task.ResultRef = ref
	}
}

// ID is the task's id.
func (o *TaskOutput) ID() string { return o.lt.id }

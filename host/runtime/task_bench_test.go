package runtime

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkTaskOutput measures the host's side of a background task's
// output: 16 KiB chunks counted into the stream statistics and stored in
// task_logs (group-committed every 100 ms or 256 KiB). MB/s is the rate a
// plugin may send output chunks before the task's writer waits.
func BenchmarkTaskOutput(b *testing.B) {
	s := benchStore(b)
	m, _, err := NewTaskManager(context.Background(), s)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	chunk := bytes.Repeat([]byte("output line of a build step\n"), MaxLogChunk/28)
	ready := make(chan *TaskOutput)
	release := make(chan struct{})
	if _, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		ready <- out
		<-release
		return TaskOutcome{}
	}); err != nil {
		b.Fatal(err)
	}
	out := <-ready
	defer close(release)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for b.Loop() {
		if err := out.Write("stdout", chunk); err != nil {
			b.Fatal(err)
		}
	}
}

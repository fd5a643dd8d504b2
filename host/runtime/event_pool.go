package runtime

import "sync"

// eventValues hold the encoded bytes of events that Append and Submit
// queue. bbolt keeps a value only until its transaction ends, so once the
// group is committed (or failed) the writer gives each back and the next
// event is encoded into it: an audited call then leaves no encoded event
// behind for the collector.
var eventValues = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledEvent keeps an unusually large event's bytes out of the pool.
const maxPooledEvent = 16 << 10

// encodePooled encodes ev into pooled bytes; req.recycle gives them back.
func encodePooled(ev Event) (*appendReq, error) {
	buf := eventValues.Get().(*[]byte)
	value, err := appendEvent(*buf, ev)
	if err != nil {
		eventValues.Put(buf)
		return nil, err
	}
	return &appendReq{value: value, pooled: buf, done: make(chan struct{})}, nil
}

// recycle gives a committed event's bytes back to the pool; nothing reads
// req.value after its transaction has ended.
func (req *appendReq) recycle() {
	if req.pooled == nil {
		return
	}
	if cap(req.value) <= maxPooledEvent {
		*req.pooled = req.value[:0]
		eventValues.Put(req.pooled)
	}
	req.value, req.pooled = nil, nil
}

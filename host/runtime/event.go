package runtime

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// Event is one entry of the event log. Seq is assigned by the store.
type Event struct {
	Seq     uint64          `json:"seq"`
	Time    time.Time       `json:"time"`
	Kind    string          `json:"kind"`
	Session string          `json:"session,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	CallID  string          `json:"call_id,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// storedEvent is the value written under the sequence key; the sequence
// lives only in the key.
type storedEvent struct {
	Time    time.Time       `json:"t"`
	Kind    string          `json:"k"`
	Session string          `json:"s,omitempty"`
	Tool    string          `json:"tl,omitempty"`
	CallID  string          `json:"c,omitempty"`
	Data    json.RawMessage `json:"d,omitempty"`
}

// encodeEvent writes the storedEvent form of ev, the bytes json.Marshal
// would give for it, without reflection: it runs for every call.
func encodeEvent(ev Event) ([]byte, error) {
	if ev.Kind == "" {
		return nil, fmt.Errorf("event has no kind: set Event.Kind")
	}
	b := make([]byte, 0, 128+len(ev.Session)+len(ev.Tool)+len(ev.CallID)+len(ev.Data))
	b = append(b, `{"t":"`...)
	b, err := ev.Time.AppendText(b)
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", ev.Kind, err)
	}
	b = appendJSONString(append(b, `","k":`...), ev.Kind)
	for _, f := range [...]struct{ key, value string }{{`,"s":`, ev.Session}, {`,"tl":`, ev.Tool}, {`,"c":`, ev.CallID}} {
		if f.value != "" {
			b = appendJSONString(append(b, f.key...), f.value)
		}
	}
	if len(ev.Data) > 0 {
		// Compacted, checked and HTML-escaped as a json.RawMessage field
		// is; data with nothing to escape (MarshalData's never has) is
		// compacted in place.
		b = append(b, `,"d":`...)
		buf := bytes.NewBuffer(b)
		if bytes.ContainsAny(ev.Data, "<>&\u2028\u2029") || json.Compact(buf, ev.Data) != nil {
			d, err := json.Marshal(ev.Data)
			if err != nil {
				return nil, fmt.Errorf("encode %s event: %w", ev.Kind, err)
			}
			buf.Truncate(len(b))
			buf.Write(d)
		}
		b = buf.Bytes()
	}
	return append(b, '}'), nil
}

func decodeEvent(key, value []byte) (Event, error) {
	if len(key) != 8 {
		return Event{}, fmt.Errorf("event key of %d bytes, want 8", len(key))
	}
	var st storedEvent
	if err := json.Unmarshal(value, &st); err != nil {
		return Event{}, fmt.Errorf("decode event %d: %w", binary.BigEndian.Uint64(key), err)
	}
	return Event{
		Seq: binary.BigEndian.Uint64(key), Time: st.Time, Kind: st.Kind,
		Session: st.Session, Tool: st.Tool, CallID: st.CallID, Data: st.Data,
	}, nil
}

// seqKey is big-endian so that byte order is sequence order.
func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

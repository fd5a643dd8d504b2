package runtime

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"demiurge.dev/host/internal/jsonenc"
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
	return appendEvent(nil, ev)
}

// appendEvent is encodeEvent into b's storage (reset to empty).
func appendEvent(b []byte, ev Event) ([]byte, error) {
	if ev.Kind == "" {
		return nil, fmt.Errorf("event has no kind: set Event.Kind")
	}
	if n := 128 + len(ev.Session) + len(ev.Tool) + len(ev.CallID) + len(ev.Data); cap(b) < n {
		b = make([]byte, 0, n)
	}
	b = append(b[:0], `{"t":"`...)
	b, err := ev.Time.AppendText(b)
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", ev.Kind, err)
	}
	b = jsonenc.String(append(b, `","k":`...), ev.Kind, true)
	for _, f := range [...]struct{ key, value string }{{`,"s":`, ev.Session}, {`,"tl":`, ev.Tool}, {`,"c":`, ev.CallID}} {
		if f.value != "" {
			b = jsonenc.String(append(b, f.key...), f.value, true)
		}
	}
	if len(ev.Data) > 0 {
		// A json.RawMessage field is compacted, checked and HTML-escaped.
		// Data with nothing for that to change (MarshalData's always) is
		// copied as it is; anything else goes through json.Marshal.
		b = append(b, `,"d":`...)
		if compactSafe(ev.Data) {
			b = append(b, ev.Data...)
		} else {
			d, err := json.Marshal(ev.Data)
			if err != nil {
				return nil, fmt.Errorf("encode %s event: %w", ev.Kind, err)
			}
			b = append(b, d...)
		}
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

// compactSafe reports whether data is exactly what json.Compact with HTML
// escaping would make of it: one valid JSON value with no whitespace
// between tokens and none of the bytes escaping rewrites (<, >, & and the
// UTF-8 of U+2028 and U+2029). It accepts what encoding/json's scanner
// accepts and nothing more; a false answer only sends data the slow way.
func compactSafe(data []byte) bool {
	s := safeScan{b: data}
	return s.value(0) && s.i == len(data)
}

// maxSafeDepth sends deeper documents the slow way, well inside the
// scanner's own nesting limit.
const maxSafeDepth = 1000

type safeScan struct {
	b []byte
	i int
}

func (s *safeScan) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '{':
		return s.object(depth)
	case '[':
		return s.array(depth)
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return s.number()
		}
	}
	return false
}

func (s *safeScan) object(depth int) bool {
	if depth >= maxSafeDepth {
		return false
	}
	s.i++ // {
	if s.next('}') {
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() || !s.next(':') || !s.value(depth+1) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

func (s *safeScan) array(depth int) bool {
	if depth >= maxSafeDepth {
		return false
	}
	s.i++ // [
	if s.next(']') {
		return true
	}
	for {
		if !s.value(depth + 1) {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// next consumes c if it is the next byte.
func (s *safeScan) next(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *safeScan) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// number is JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *safeScan) number() bool {
	s.next('-')
	switch {
	case s.next('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.next('.') && s.digits() == 0 {
		return false
	}
	if s.next('e') || s.next('E') {
		if !s.next('+') {
			s.next('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *safeScan) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// str scans a string from its opening quote. Bytes of invalid UTF-8 are
// accepted, as the scanner accepts them (and Compact copies them).
func (s *safeScan) str() bool {
	s.i++ // "
	for s.i < len(s.b) {
		c := s.b[s.i]
		if !stringSpecial[c] {
			s.i++
			continue
		}
		switch {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if len(s.b)-s.i < 6 {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		case c == 0xE2:
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
			if s.i+2 < len(s.b) && s.b[s.i+1] == 0x80 && s.b[s.i+2]&^1 == 0xA8 {
				return false
			}
			s.i++
		default: // a control byte, or <, > or &
			return false
		}
	}
	return false
}

// stringSpecial marks the bytes str must look at: the end of the string,
// escapes, control bytes (invalid in a string), what HTML escaping
// rewrites, and the first byte of U+2028 and U+2029.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[c] = true
	}
	return t
}()

package runtime

import (
	"encoding/json"

	"demiurge.dev/host/internal/jsonenc"
)

// MarshalData encodes an event's data exactly as json.Marshal does, byte
// for byte, with the host's one encoder (host/internal/jsonenc).
func MarshalData(data map[string]any) (json.RawMessage, error) {
	return jsonenc.Marshal(data)
}

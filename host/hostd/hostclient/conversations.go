package hostclient

import "time"

// Conversation is one session that holds messages, as the host's
// Conversations call lists it and `sessions list` shows it (the front
// end makes the title).
type Conversation struct {
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	Messages  uint64    `json:"messages"`
	FirstText string    `json:"first_text"`
}

package approval

import (
	"io"

	"demiurge.dev/host/approval/prompt"
)

// writeCard prints the compact approval card as the terminal provider
// asks it (PromptCard, then the question).
func writeCard(w io.Writer, req Request) error {
	card := PromptCard(req)
	_, err := io.WriteString(w, card.Body+prompt.Question(card))
	return err
}

// cardQuestion is the card's last line, the question itself.
func cardQuestion(req Request) string { return prompt.Question(PromptCard(req)) }

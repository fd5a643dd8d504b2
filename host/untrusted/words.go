package untrusted

import "math/bits"

// The phrase rules work on a stream of words: each word of a small
// vocabulary has roles, and a rule fires at its last word when the words
// before it came close enough. Words outside the vocabulary only count.

// roles of vocabulary words.
const (
	rOverride  = 1 << iota // ignore, disregard, forget, override, bypass
	rInstr                 // instructions, prompt, rules, guidelines
	rPrior                 // above ("ignore the above")
	rAI                    // ai, assistant, llm, agent, chatgpt, claude
	rModal                 // must, should, need, please, always, immediately
	rAction                // call, invoke, execute, run, send, read, fetch
	rNew                   // new, updated, real, hidden, secret, additional
	rYou                   // you
	rAre                   // are, re (you're)
	rNow                   // now
	rDeveloper             // developer
	rMode                  // mode
	rAnything              // anything
	rSystem                // system
	rLeak                  // reveal, print, repeat, output, leak, show
	rUser                  // user, users, human, operator
	rTell                  // tell, inform, mention, notify, alert
	rNeg                   // not, don, never, without, nor
	rVocative              // dear, attention, hey, note
)

var vocabulary = map[string]uint32{
	"ignore": rOverride | rAction, "disregard": rOverride, "forget": rOverride, "override": rOverride,
	"bypass": rOverride, "neglect": rOverride, "ignoring": rOverride, "disregarding": rOverride,
	"instructions": rInstr, "instruction": rInstr, "prompt": rInstr, "prompts": rInstr, "rules": rInstr,
	"guidelines": rInstr, "directives": rInstr, "directions": rInstr, "guardrails": rInstr, "programming": rInstr,
	"above": rPrior,
	"ai":    rAI, "assistant": rAI, "assistants": rAI, "llm": rAI, "llms": rAI, "agent": rAI, "agents": rAI,
	"chatbot": rAI, "chatgpt": rAI, "gpt": rAI, "claude": rAI, "gemini": rAI, "copilot": rAI, "bard": rAI,
	"bing": rAI, "model": rAI, "models": rAI,
	"must": rModal, "should": rModal, "shall": rModal, "need": rModal, "needs": rModal, "required": rModal,
	"instructed": rModal, "please": rModal, "always": rModal, "immediately": rModal, "first": rModal,
	"call": rAction, "invoke": rAction, "execute": rAction, "run": rAction, "send": rAction,
	"fetch": rAction, "visit": rAction, "open": rAction, "include": rAction, "append": rAction,
	"print": rAction | rLeak, "output": rAction | rLeak, "reply": rAction, "respond": rAction, "say": rAction,
	"email": rAction, "forward": rAction, "delete": rAction, "upload": rAction, "use": rAction,
	"write": rAction, "navigate": rAction, "click": rAction, "pass": rAction, "post": rAction,
	"new": rNew, "updated": rNew, "real": rNew, "actual": rNew, "hidden": rNew, "secret": rNew,
	"additional": rNew, "revised": rNew, "true": rNew, "important": rNew,
	"you": rYou, "are": rAre, "re": rAre, "now": rNow, "developer": rDeveloper, "mode": rMode,
	"anything": rAnything, "system": rSystem,
	"reveal": rLeak, "repeat": rLeak, "leak": rLeak, "show": rLeak | rTell, "display": rLeak, "share": rLeak,
	"user": rUser, "users": rUser, "human": rUser, "operator": rUser,
	"tell": rTell, "inform": rTell, "mention": rTell, "notify": rTell, "alert": rTell, "telling": rTell,
	"informing": rTell, "mentioning": rTell, "notifying": rTell,
	"not": rNeg, "don": rNeg, "never": rNeg, "without": rNeg, "nor": rNeg,
	"dear": rVocative, "attention": rVocative, "hey": rVocative, "note": rVocative,
}

// vocab is vocabulary as an open-addressed table keyed by the word
// packed into two machine words (packWord): a word costs one multiply,
// one probe and two compares, no map lookup and no loop over its letters.
type vocabSlot struct {
	lo, hi uint64
	n      int
	roles  uint32
}

const vocabBits = 10

var vocab = func() (t [1 << vocabBits]vocabSlot) {
	for w, r := range vocabulary {
		lo, hi := packWord(w, 0, len(w))
		k := slotOf(lo, hi)
		for t[k].n != 0 {
			k = (k + 1) & (len(t) - 1)
		}
		t[k] = vocabSlot{lo: lo, hi: hi, n: len(w), roles: r}
	}
	return t
}()

func slotOf(lo, hi uint64) int {
	return int(((lo ^ hi*0xC2B2AE3D27D4EB4F) * 0x9E3779B97F4A7C15) >> (64 - vocabBits))
}

// packWord is the word s[start:end] (letters, at most 16 of them) in
// lower case as two little-endian words: its first eight letters, and
// its last eight when it has more than eight, each zero-padded. With the
// length, they are the word.
func packWord(s string, start, end int) (lo, hi uint64) {
	const fold = 0x2020202020202020
	n := end - start
	if start+8 <= len(s) {
		lo = load8(s, start) | fold
		if n < 8 {
			lo &= 1<<(8*n) - 1
		}
	} else {
		for j := end - 1; j >= start; j-- {
			lo = lo<<8 | uint64(s[j]|0x20)
		}
	}
	if n > 8 {
		hi = load8(s, end-8) | fold
	}
	return lo, hi
}

// load8 is s[i:i+8] as a little-endian word (one load once compiled).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// maxWord is the longest vocabulary word.
const maxWord = 12

// vocabFirst says which one-letter words and vocabFilter which word keys
// (wordKey) may be vocabulary words, so that most words are passed over
// without hashing.
var vocabFirst, vocabFilter = func() (first [256]bool, bigram wordFilter) {
	for w := range vocabulary {
		if len(w) == 1 {
			first[w[0]] = true
		} else {
			bigram.add(wordKey(w, 0, len(w)))
		}
	}
	// afterNow's words need no place here: the word after "you are
	// now" is read ahead (words.word).
	return
}()

// wordKey is the filter's key of s[start:end] (two letters at least):
// its first two letters, its last and its length, mixed into 16 bits, so
// that most words outside the vocabulary are passed over without a
// lookup.
func wordKey(s string, start, end int) uint16 {
	k := uint32(s[start]|0x20)<<24 | uint32(s[start+1]|0x20)<<16 | uint32(s[end-1]|0x20)<<8 | uint32(end-start)
	return uint16((k * 0x9E3779B1) >> 16)
}

// wordFilter is a bit set of word keys: 8 KiB, so it stays in
// the first-level cache while a page is scanned.
type wordFilter [1 << 10]uint64

func (b *wordFilter) add(g uint16)      { b[g>>6] |= 1 << (g & 63) }
func (b *wordFilter) has(g uint16) bool { return b[g>>6]&(1<<(g&63)) != 0 }

// afterNow are the words that make "you are now" a role hijack when they
// follow it ("you are now DAN", "you are now an AI without rules"), and
// not "you are now ready" or "you are now logged in".
var afterNow = map[string]bool{
	"an": true, "dan": true, "free": true, "going": true, "unrestricted": true, "jailbroken": true,
	"acting": true, "my": true, "named": true, "called": true, "no": true, "in": true,
}

// lookup returns the roles of the word s[start:end].
func lookup(s string, start, end int) uint32 {
	n := end - start
	if n > 16 {
		return 0
	}
	lo, hi := packWord(s, start, end)
	for k := slotOf(lo, hi); ; k = (k + 1) & (len(vocab) - 1) {
		e := &vocab[k]
		if e.n == 0 {
			return 0
		}
		if e.lo == lo && e.hi == hi && e.n == n {
			return e.roles
		}
	}
}

func newWords() words {
	var w words
	for i := range w.last {
		w.last[i] = far
	}
	return w
}

// words is the phrase rules' state: where each role was seen last, in
// words. far keeps a role not seen yet out of every window.
type words struct {
	idx  int
	last [21]int
	// modal is the word index of the last modal, modalAI that of the last
	// modal with an AI name at most four words before it.
	modal, modalAI int
	// conceal is the word index of the last telling word after a negation.
	conceal int
}

const far = -1 << 30

func (w *words) seen(role uint32, within int) bool {
	return w.idx-w.last[bits.TrailingZeros32(role)] <= within
}

// word takes the word s[start:end], counted already, and fires the rules
// it completes.
func (w *words) word(f *found, s string, start, end int) {
	if r := lookup(s, start, end); r != 0 {
		w.roles(f, s, start, end, r)
	}
}

// roles is word for a vocabulary word whose roles r were looked up
// already (the sparse scan's anchors: phraseState.judge).
func (w *words) roles(f *found, s string, start, end int, r uint32) {
	switch {
	case r&rInstr != 0 && w.seen(rOverride, 6),
		r&rPrior != 0 && w.seen(rOverride, 3):
		f.add(KindOverride, start)
	case r&rInstr != 0 && w.seen(rNew, 1),
		r&rNow != 0 && w.seen(rAnything, 1),
		r&rMode != 0 && w.seen(rDeveloper, 1),
		r&rInstr != 0 && w.seen(rSystem, 1) && w.seen(rLeak, 6):
		f.add(KindRoleHijack, start)
	case r&rAI != 0 && (w.seen(rVocative, 1) || w.seen(rAre, 2) && w.seen(rYou, 3)),
		r&rAction != 0 && w.seen(rModal, 6) && w.modalAfterAI():
		f.add(KindAddressedToAI, start)
	case r&rUser != 0 && w.conceal != 0 && w.idx-w.conceal <= 16:
		f.add(KindConcealment, start)
	}
	for m := r; m != 0; m &= m - 1 {
		w.last[bits.TrailingZeros32(m)] = w.idx
	}
	// A modal counts for the AI rule only when an AI name came just
	// before it.
	if r&rNow != 0 && w.seen(rAre, 1) && w.seen(rYou, 2) {
		// The word after "you are now" is judged here, read ahead:
		// the scan notes only possible vocabulary words.
		if p, q := nextWord(s, end); afterNowWord(s[p:q]) {
			f.add(KindRoleHijack, p)
		}
	}
	// "do not mention ... the user": a telling word just after a negation
	// arms the rule for the next sixteen words.
	if r&rTell != 0 && w.idx-w.last[bits.TrailingZeros32(rNeg)] <= 2 {
		w.conceal = w.idx
	}
	if r&rModal != 0 {
		w.modal = w.idx
		if w.idx-w.last[bits.TrailingZeros32(rAI)] <= 4 {
			w.modalAI = w.idx
		}
	}
}

func (w *words) modalAfterAI() bool { return w.modalAI != 0 && w.modalAI == w.modal }

// nextWord is the bounds of the next word (letter run) the scan meets at
// or after i; p == q when there is none. It steps as the scan does: a
// lead byte of the invisible characters steps over its whole sequence,
// so letters inside a malformed one ("now\xe2ab an") are no word.
func nextWord(s string, i int) (p, q int) {
	for i < len(s) && class[s[i]] != clsLetter {
		if class[s[i]] == clsUnicode {
			size, _ := invisibleAt(s, i)
			i += size
			continue
		}
		i++
	}
	for p = i; i < len(s) && class[s[i]] == clsLetter; i++ {
	}
	return p, i
}

// afterNowWord reports whether word, in any case, is one of afterNow (or
// the article "a").
func afterNowWord(word string) bool {
	if len(word) == 1 {
		return word[0]|0x20 == 'a'
	}
	if len(word) > 12 {
		return false
	}
	var buf [12]byte
	for i := 0; i < len(word); i++ {
		buf[i] = word[i] | 0x20
	}
	return afterNow[string(buf[:len(word)])]
}

package fsops

import "sort"

// boundedSelection keeps the smallest n items offered, in O(n) memory:
// answering "the first 100" of a million candidates holds 100.
type boundedSelection[T any] struct {
	n     int
	less  func(a, b T) bool
	items []T // a max-heap: items[0] is the largest kept
}

func newBoundedSelection[T any](n int, less func(a, b T) bool) *boundedSelection[T] {
	return &boundedSelection[T]{n: n, less: less}
}

// wouldKeep reports whether x would be kept if offered now.
func (s *boundedSelection[T]) wouldKeep(x T) bool {
	return s.n > 0 && (len(s.items) < s.n || s.less(x, s.items[0]))
}

// offer keeps x if it is among the n smallest so far.
func (s *boundedSelection[T]) offer(x T) {
	if !s.wouldKeep(x) {
		return
	}
	if len(s.items) < s.n {
		s.items = append(s.items, x)
		s.up(len(s.items) - 1)
		return
	}
	s.items[0] = x
	s.down(0)
}

// sorted returns the kept items in ascending order.
func (s *boundedSelection[T]) sorted() []T {
	out := append([]T(nil), s.items...)
	sort.Slice(out, func(i, j int) bool { return s.less(out[i], out[j]) })
	return out
}

func (s *boundedSelection[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(s.items[p], s.items[i]) {
			return
		}
		s.items[p], s.items[i] = s.items[i], s.items[p]
		i = p
	}
}

func (s *boundedSelection[T]) down(i int) {
	for {
		l, big := 2*i+1, i
		if l < len(s.items) && s.less(s.items[big], s.items[l]) {
			big = l
		}
		if r := l + 1; r < len(s.items) && s.less(s.items[big], s.items[r]) {
			big = r
		}
		if big == i {
			return
		}
		s.items[i], s.items[big] = s.items[big], s.items[i]
		i = big
	}
}

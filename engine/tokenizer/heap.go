package tokenizer

// lesser is an element of a binary min-heap.
type lesser[T any] interface{ less(T) bool }

// heapPush adds x to the min-heap h. Both tokenizers keep their candidate
// merges in one; container/heap would box every element in an interface.
func heapPush[T lesser[T]](h []T, x T) []T {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// heapPop removes and returns the least element of the non-empty heap h.
func heapPop[T lesser[T]](h []T) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top, h
}

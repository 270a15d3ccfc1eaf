package parse

import "sync"

// onCores calls f on each of pieces, on up to procs goroutines taking the
// next piece as they finish one (the pieces of a split document are of
// uneven size), and returns when every call has.
func onCores[T any](pieces []T, procs int, f func(T)) {
	next := make(chan T, len(pieces))
	for _, p := range pieces {
		next <- p
	}
	close(next)
	var wg sync.WaitGroup
	for range min(procs, len(pieces)) {
		wg.Go(func() {
			for p := range next {
				f(p)
			}
		})
	}
	wg.Wait()
}

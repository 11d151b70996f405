package grzybcio

import (
	"runtime"
	"sync"
)

// rawEntry is an entry's text and the line it starts on.
type rawEntry struct {
	text []byte
	line int
}

// batch is entries read together by one worker, and what it made of them.
type batch[T any] struct {
	in   []rawEntry
	out  []T
	done chan struct{}
}

// batchSize is how many entries a worker takes at a time: enough that the
// channels cost nothing, few enough that the entries in flight (a few
// batches a core) take little memory.
const batchSize = 32

// stream reads entries on every core and applies them in file order: read
// parses and checks one entry on any goroutine; apply takes each result on
// the caller's goroutine, in the order of the file. produce calls its
// argument with each entry. The first error of produce or apply stops it.
func stream[T any](produce func(func(rawEntry) error) error, read func(rawEntry) T, apply func(T) error) error {
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *batch[T], workers)
	order := make(chan *batch[T], 2*workers)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				b.out = make([]T, len(b.in))
				for i, e := range b.in {
					b.out[i] = read(e)
				}
				b.in = nil
				close(b.done)
			}
		}()
	}
	var produced error
	go func() {
		defer close(order)
		defer close(jobs)
		var cur *batch[T]
		send := func() bool {
			select {
			case order <- cur:
			case <-quit:
				return false
			}
			select {
			case jobs <- cur:
			case <-quit:
				return false
			}
			cur = nil
			return true
		}
		produced = produce(func(e rawEntry) error {
			if cur == nil {
				cur = &batch[T]{in: make([]rawEntry, 0, batchSize), done: make(chan struct{})}
			}
			cur.in = append(cur.in, e)
			if len(cur.in) == batchSize && !send() {
				return errStopped
			}
			return nil
		})
		if produced == nil && cur != nil {
			send()
		}
	}()
	var applied error
	for b := range order {
		if applied != nil {
			continue // drained, so that the producer ends
		}
		<-b.done
		for _, r := range b.out {
			if applied = apply(r); applied != nil {
				close(quit)
				break
			}
		}
	}
	wg.Wait()
	if applied != nil {
		return applied
	}
	return produced
}

// errStopped ends a producer when the entries it read are no longer wanted.
var errStopped = stoppedError{}

type stoppedError struct{}

func (stoppedError) Error() string { return "stopped" }

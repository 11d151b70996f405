//go:build !linux

package priority

// Raise returns ErrUnsupported: the main thread keeps its priority.
func Raise() error { return ErrUnsupported }

// Lower does nothing.
func Lower() error { return nil }

// Raised reports false.
func Raised() bool { return false }

package priority

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// TestRaiseAndLower: a locked thread goes to the real-time class and back;
// as root, where nothing forbids it, Raise must succeed. Elsewhere a
// refusal skips, which RYNEK_REQUIRE_REALTIME=1 (set by .ci/run) makes a
// failure.
func TestRaiseAndLower(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := Raise()
	switch {
	case errors.Is(err, ErrUnsupported):
		if Raised() {
			t.Fatal("Raised says yes where Raise is unsupported")
		}
		return
	case errors.Is(err, syscall.EPERM) && os.Geteuid() != 0:
		if os.Getenv("RYNEK_REQUIRE_REALTIME") == "1" {
			t.Fatalf("real-time priority is required (RYNEK_REQUIRE_REALTIME=1) but refused: %v", err)
		}
		t.Skipf("not permitted here (%v): %s", err, Hint)
	case err != nil:
		t.Fatalf("Raise: %v", err)
	}
	if !Raised() {
		t.Fatal("after Raise the thread is not real-time")
	}
	// A thread the runtime starts meanwhile starts normal.
	done := make(chan bool)
	go func() {
		runtime.LockOSThread() // a thread of its own, made now or before
		done <- Raised()
	}()
	if <-done {
		t.Error("another goroutine's thread is real-time")
	}
	if err := Lower(); err != nil {
		t.Fatalf("Lower: %v", err)
	}
	if Raised() {
		t.Fatal("after Lower the thread is still real-time")
	}
}

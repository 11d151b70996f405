package market

// BindMainThread makes the calling goroutine the main server thread: the only
// goroutine allowed to mutate. The console calls it from the goroutine that
// runs the Bubble Tea event loop. On Linux it also locks that goroutine to
// its OS thread (see thread_linux.go for why).
//
// Binding is deliberate: calling it again from the bound goroutine changes
// nothing, and a call from any other goroutine while one is bound is refused
// with ErrMainThreadBound, so a stray goroutine cannot silently take over the
// main thread. To move the main thread on purpose, call ReleaseMainThread
// from the bound goroutine first, then BindMainThread from the new one.
func (s *Service) BindMainThread() error {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	if t := s.mainT.Load(); t != 0 {
		if t == currentThread() {
			return nil
		}
		return ErrMainThreadBound
	}
	s.mainT.Store(bindThread())
	return nil
}

// ReleaseMainThread unbinds the main thread. Only the bound goroutine may
// release it; afterwards every mutation is refused with ErrNotMainThread
// until some goroutine calls BindMainThread.
func (s *Service) ReleaseMainThread() error {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	if !s.onMain() {
		return ErrMainThreadNotHeld
	}
	s.mainT.Store(0)
	unbindThread()
	return nil
}

// IsMainThread reports whether the caller is the bound main thread.
func (s *Service) IsMainThread() bool { return s.onMain() }

func (s *Service) onMain() bool {
	t := s.mainT.Load()
	return t != 0 && t == currentThread()
}

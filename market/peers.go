package market

import (
	"sync/atomic"
	"time"
)

// The other instances of a shared market, for a person to read: the
// console's header says beside which ones it runs. The store lists them
// (PeerLister); the follower's goroutine asks it every peersEvery and keeps
// the answer, so that no main thread ever reads them from the store.

// Peer is another instance that has the market open now.
type Peer struct {
	Name    string // its name, the origin of its events
	Command string // what it runs ("serve", "console"), when the store knows
	PID     int    // its process, when on this machine
}

// PeerLister is a SharedStore that can list the other instances.
type PeerLister interface {
	Peers() ([]Peer, error)
}

// peersEvery is how often the follower lists the other instances.
const peersEvery = time.Second

// peerList is the service's copy of the list.
type peerList struct {
	list atomic.Pointer[[]Peer]
	read time.Time // the follower's goroutine's: when it last asked
}

// refresh asks the store again when peersEvery has passed (the follower's
// goroutine). A failed read keeps the last list.
func (p *peerList) refresh(store SharedStore) {
	lister, ok := store.(PeerLister)
	if !ok || time.Since(p.read) < peersEvery {
		return
	}
	p.read = time.Now()
	if peers, err := lister.Peers(); err == nil {
		p.list.Store(&peers)
	}
}

// Peers lists the other instances that had the market open when the
// follower last looked (at most about a second ago); none for a market no
// other instance shares. Safe from any goroutine.
func (s *Service) Peers() []Peer {
	if l := s.peers.list.Load(); l != nil {
		return *l
	}
	return nil
}

// Instance is this instance's name in a shared market (its events'
// origin), "" for a market it has alone.
func (s *Service) Instance() string {
	if shared, ok := s.store.(SharedStore); ok {
		return shared.Instance()
	}
	return ""
}

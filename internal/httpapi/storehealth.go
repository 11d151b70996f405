package httpapi

import (
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// StoreOutage is a time the store could not reach its database.
type StoreOutage struct {
	Since wire.Time `json:"since"`
	// Back is when it answered again; absent while it is away.
	Back wire.Time `json:"back,omitzero"`
	// Count is how many times it was away since the market started.
	Count int `json:"count"`
	// Refused counts the changes refused since Since.
	Refused int `json:"refused"`
	// ProbeError is why the newest try to reach it failed.
	ProbeError string `json:"probeError,omitempty"`
	// InDoubt is set while a change sent when the link broke waits for the
	// database to say whether it was saved.
	InDoubt bool `json:"inDoubt,omitempty"`
}

// newStoreHealth is the store's part of the health.
func newStoreHealth(sh market.StoreHealth) StoreHealth {
	store := StoreHealth{OK: !sh.Failing && !sh.Unreachable, Reachable: !sh.Unreachable, Interrupted: sh.Interrupted}
	if sh.Runs > 0 {
		f := &StoreFailure{Error: sh.Cause, Failures: sh.Failures, Since: wire.At(sh.Since), Last: wire.At(sh.Last)}
		if sh.LastCause != sh.Cause {
			f.LastError = sh.LastCause
		}
		if !sh.Over.IsZero() {
			f.Over = wire.At(sh.Over)
		}
		store.Failure = f
	}
	if sh.Outages > 0 {
		o := &StoreOutage{Since: wire.At(sh.Away), Count: sh.Outages, Refused: sh.Refused, ProbeError: sh.ProbeCause, InDoubt: sh.InDoubt}
		if !sh.Unreachable {
			o.Back = wire.At(sh.Back)
		}
		store.Outage = o
	}
	return store
}

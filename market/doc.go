// Package market is Rynek's in-process player-to-player marketplace service.
//
// It implements the service contract: twelve operations, three events, eight
// transaction states and two exact errors. State
// lives in memory for reads and in a Store (market/sqlite by default) for
// durability: every mutation is written atomically to the store before the call
// returns and before its event is published.
//
// Mutations run on one "main server thread" (the goroutine bound with
// BindMainThread, in the console the Bubble Tea update loop). Reads are
// snapshots and are safe from any goroutine.
package market

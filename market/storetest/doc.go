// Package storetest checks a market.Store against the semantics the service
// relies on, for every store package (SQLite, PostgreSQL) alike: each store's
// tests run every suite here, so a behaviour the service counts on is held to
// in one place and no store can drift from the other.
//
// Differential runs thousands of random batches over a few keys of each kind,
// so that duplicates, missing rows, stale conditions and an op twice in one
// batch are common, against the store under test and against Model, a plain
// in-memory statement of the semantics. Both must accept or refuse each batch
// alike (a refused batch writes nothing: no row, no log entry), and hold the
// same rows and the same event log, live and after a reopen.
//
// The other suites take a store's Tables, its hand on its own tables in its
// own dialect: CheckSuite damages a market by hand and expects the integrity
// check to name each edit, OpeningAccount checks the opening account and the
// log's horizon, Snapshots checks the read-only snapshot.
//
// Of this module it imports market alone, as the stores do, so that every
// store package can run it from its tests; it must not import a store.
package storetest

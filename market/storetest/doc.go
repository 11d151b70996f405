// Package storetest checks a market.Store against the semantics the service
// relies on, for every store package (SQLite, PostgreSQL) alike.
//
// Differential runs thousands of random batches over a few keys of each kind,
// so that duplicates, missing rows, stale conditions and an op twice in one
// batch are common, against the store under test and against Model, a plain
// in-memory statement of the semantics. Both must accept or refuse each batch
// alike (a refused batch writes nothing: no row, no log entry), and hold the
// same rows and the same event log, live and after a reopen.
package storetest

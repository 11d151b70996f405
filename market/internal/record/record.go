// Package record is the binary form of the market's stored records: a
// listing, a transaction and its timeline, a player's own data (favourites,
// price alerts and what they fired) and the bodies of the event log's
// entries. With market/internal/item (the item blob, the inventory and the
// Reader every decoder here reads with) it is the one binary format the
// stores keep, with one naming scheme: EncodeX appends X to a byte slice,
// DecodeX accepts exactly what EncodeX writes.
//
// It exists so that the format can be read, fuzzed and changed in one place,
// apart from the service's locking and bookkeeping. The types here are plain
// values in the format's own terms (amounts in cents as int64, players by
// UUID); the market converts its private records to and from them. It
// imports only market/internal/item, never market.
package record

// Version is the format version byte that starts a listing, transaction
// and player-data record.
const Version = 1

// EntryVersion is the format version byte that starts every event-log
// entry's body.
const EntryVersion = 1

// recordRoom and entryRoom are what an encoder makes room for at once
// (slices.Grow: nothing when the caller's buffer has it): a record and a
// log entry of a plain item fit. Grown one append at a time from nil, an
// entry of a purchase took five allocations and copies, and the encoders
// made half of a purchase's allocations on the main thread (memory profile
// of BenchmarkCompareWrites).
const (
	recordRoom = 128
	entryRoom  = 256
)

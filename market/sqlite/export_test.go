package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"time"

	"github.com/rynek/rynek/market"
)

// CreateVersion1 makes an empty database of schema version 1 at path, as the
// previous Rynek left it: no event log, and the change log's id and
// last-applied mark in meta. Tests of the upgrade write its change log with
// WriteLegacyLog.
func CreateVersion1(path string, logID, applied int64) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{schema,
		fmt.Sprintf("INSERT INTO meta (k, v) VALUES ('log_id', %d), ('log_applied', %d)", logID, applied),
		fmt.Sprintf("PRAGMA application_id = %d", applicationID), "PRAGMA user_version = 1"} {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			return err
		}
	}
	return nil
}

// LegacyRecord is one record of a version 1 change log.
type LegacyRecord struct {
	Seq   uint64
	Batch market.Batch
}

// WriteLegacyLog writes a version 1 change log for the database at path,
// in the format that version wrote.
func WriteLegacyLog(path string, logID uint64, records []LegacyRecord) error {
	out := make([]byte, legacyLogHeaderSize)
	copy(out, legacyLogMagic)
	binary.LittleEndian.PutUint64(out[8:], logID)
	for _, r := range records {
		rec := make([]byte, legacyRecHeaderSize)
		binary.LittleEndian.PutUint64(rec[8:], r.Seq)
		rec = encodeLegacyBatch(rec, &r.Batch)
		binary.LittleEndian.PutUint32(rec[0:], uint32(len(rec)-legacyRecHeaderSize))
		binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(rec[8:], castagnoli))
		out = append(out, rec...)
	}
	return os.WriteFile(legacyLogPath(path), out, 0o600)
}

// LegacyLogPath exposes the change log's path.
var LegacyLogPath = legacyLogPath

// DecodeLegacyBatch exposes the version 1 record codec to the fuzzer.
var DecodeLegacyBatch = decodeLegacyBatch

// EncodeLegacyBatch exposes the version 1 record encoder to the fuzzer.
func EncodeLegacyBatch(b *market.Batch) []byte { return encodeLegacyBatch(nil, b) }

func putBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func putString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// encodeLegacyBatch is the version 1 encoder: the op count, then per op its
// kind and the fields that kind uses.
func encodeLegacyBatch(dst []byte, b *market.Batch) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b.Ops)))
	for i := range b.Ops {
		op := &b.Ops[i]
		dst = append(dst, byte(op.Kind))
		switch op.Kind {
		case legacyAddPlayer:
			p := op.Player
			dst = append(dst, p.ID[:]...)
			dst = putString(dst, p.Name)
			dst = putString(dst, p.Perms)
			dst = binary.AppendVarint(dst, int64(p.Balance))
			dst = binary.AppendVarint(dst, p.LastSell)
			dst = putBytes(dst, p.Inventory)
		case legacyPlayerState:
			p := op.Player
			dst = append(dst, p.ID[:]...)
			dst = binary.AppendVarint(dst, int64(p.Balance))
			dst = binary.AppendVarint(dst, p.LastSell)
			dst = putBytes(dst, p.Inventory)
		case legacyPutMail:
			m := op.Mail
			dst = append(dst, m.ID[:]...)
			dst = append(dst, m.Player[:]...)
			dst = putBytes(dst, m.Item)
			dst = putString(dst, m.Reason)
			dst = binary.AppendVarint(dst, m.Created)
			dst = binary.AppendVarint(dst, int64(m.PrevPrice))
		case legacyDelMail:
			dst = append(dst, op.Mail.ID[:]...)
		case legacyPutListing:
			dst = binary.AppendVarint(dst, op.Listing.ID)
			dst = putBytes(dst, op.Listing.Rec)
		case legacyDelListing:
			dst = binary.AppendVarint(dst, op.Int)
		case legacyPutTx:
			dst = append(dst, op.Tx.ID[:]...)
			dst = putString(dst, string(op.Tx.State))
			dst = putBytes(dst, op.Tx.Rec)
		case legacyTxState:
			dst = append(dst, op.Tx.ID[:]...)
			dst = putString(dst, string(op.Tx.State))
			dst = putBytes(dst, op.Tx.Rec)
			dst = putString(dst, string(op.ExpectState))
		case legacyMeta:
			m := op.Meta
			dst = binary.AppendVarint(dst, m.NextListingID)
			dst = binary.AppendVarint(dst, int64(m.FeeBalance))
			dst = binary.AppendVarint(dst, int64(m.Volume))
			dst = binary.AppendVarint(dst, m.Sales)
		}
	}
	return dst
}

// SetCheckpoints changes how often the store checkpoints and the WAL size
// past which it restarts the WAL; it returns a function restoring them.
func SetCheckpoints(every time.Duration, restartAt int64) (restore func()) {
	e, r := checkpointEvery, walRestartAt
	checkpointEvery, walRestartAt = every, restartAt
	return func() { checkpointEvery, walRestartAt = e, r }
}

// The op kinds of a version 1 change log record.
const (
	LegacyAddPlayer   = legacyAddPlayer
	LegacyPlayerState = legacyPlayerState
	LegacyPutMail     = legacyPutMail
	LegacyDelMail     = legacyDelMail
	LegacyPutListing  = legacyPutListing
	LegacyDelListing  = legacyDelListing
	LegacyPutTx       = legacyPutTx
	LegacyTxState     = legacyTxState
	LegacyMeta        = legacyMeta
)

package item

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/google/uuid"
)

// AppendString appends s as the format's str: a uvarint length, then the
// bytes. It takes a []byte as well, so that encoded bytes need no string
// made of them first.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// ErrMalformed is the error of a blob that is not one the format's
// encoders write.
var ErrMalformed = errors.New("malformed item blob")

// Reader reads the fields of a blob, remembering the first error. It
// accepts only minimal varints: binary.Uvarint also takes padded ones
// ("\x80\x00" for 0), which would give one value two encodings.
type Reader struct {
	B   []byte
	Err error
}

// Uvarint reads a minimal uvarint.
func (r *Reader) Uvarint() uint64 {
	if r.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.B)
	if n <= 0 || n != uvarintLen(v) {
		r.Err = ErrMalformed
		return 0
	}
	r.B = r.B[n:]
	return v
}

// ListingID reads a listing id, which is at most math.MaxInt32 everywhere:
// a larger varint would be cut to another id, and the next write would not
// give back what was read.
func (r *Reader) ListingID() uint32 {
	v := r.Uvarint()
	if v > math.MaxInt32 {
		r.Err = ErrMalformed
		return 0
	}
	return uint32(v)
}

// Varint reads a zig-zag varint, as binary.AppendVarint writes it.
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.Err != nil {
		return 0
	}
	if len(r.B) == 0 {
		r.Err = ErrMalformed
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Fixed reads the next len(dst) bytes into dst.
func (r *Reader) Fixed(dst []byte) {
	if r.Err != nil {
		return
	}
	if len(r.B) < len(dst) {
		r.Err = ErrMalformed
		return
	}
	copy(dst, r.B)
	r.B = r.B[len(dst):]
}

// Bytes reads a str of at most max bytes; the result shares r's memory.
func (r *Reader) Bytes(max int) []byte {
	n := r.Uvarint()
	if r.Err != nil {
		return nil
	}
	if n > uint64(max) || n > uint64(len(r.B)) {
		r.Err = ErrMalformed
		return nil
	}
	s := r.B[:n]
	r.B = r.B[n:]
	return s
}

// uvarintLen is the length of v's minimal uvarint encoding.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// UUID reads 16 bytes as an id.
func (r *Reader) UUID() (u uuid.UUID) {
	r.Fixed(u[:])
	return u
}

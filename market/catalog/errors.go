package catalog

import (
	"errors"
	"fmt"
)

// ErrInvalidKey matches (errors.Is) every error of a key the catalogue
// cannot take: one that is malformed or too long, empty space (air), or a
// new key past the bound of those kept at run time. The catalogue knows
// nothing of the market's error codes; the market reports these as
// INVALID_ITEM, with the same text.
var ErrInvalidKey = errors.New("invalid key")

// keyError is an error of a key, saying what is wrong with it.
type keyError struct{ msg string }

func (e *keyError) Error() string        { return e.msg }
func (e *keyError) Is(target error) bool { return target == ErrInvalidKey }

func invalidKey(format string, args ...any) error {
	return &keyError{msg: fmt.Sprintf(format, args...)}
}

package market

import (
	"errors"
	"fmt"
)

// ErrNotReady matches (errors.Is) the contract's "<Name> API nie jest gotowe"
// IllegalStateException. The error a service returns carries its own name; use
// errors.Is(err, ErrNotReady) to test for it.
var ErrNotReady = errors.New("API nie jest gotowe")

// ErrNotMainThread is the contract's IllegalStateException for a mutation
// called from any goroutine other than the bound main thread. Its text is
// exactly the contract's.
var ErrNotMainThread = errors.New("MarketAPI mutacje muszą być wywoływane z głównego wątku serwera")

// ErrMainThreadBound is returned by BindMainThread called from a goroutine
// other than the one already bound: the main thread moves only when its
// holder releases it (ReleaseMainThread).
var ErrMainThreadBound = errors.New("the main thread is already bound to another goroutine; call ReleaseMainThread from that goroutine before binding a new one")

// ErrMainThreadNotHeld is returned by ReleaseMainThread called from a
// goroutine that is not the bound main thread.
var ErrMainThreadNotHeld = errors.New("only the bound main thread can release itself")

// notReadyError is what a not-ready service returns: the exact contract text
// with the service's name, comparable to ErrNotReady.
type notReadyError struct{ name string }

func (e *notReadyError) Error() string        { return e.name + " API nie jest gotowe" }
func (e *notReadyError) Is(target error) bool { return target == ErrNotReady }

// Code classifies every failure that is not one of the two contract errors.
type Code string

// Error codes. They are stable and may be shown to users and matched by tools.
const (
	CodeUnknownListing     Code = "UNKNOWN_LISTING"
	CodeUnknownPlayer      Code = "UNKNOWN_PLAYER"
	CodeInvalidPlayer      Code = "INVALID_PLAYER"
	CodePlayerExists       Code = "PLAYER_EXISTS"
	CodeUnknownTransaction Code = "UNKNOWN_TRANSACTION"
	CodeNotOwner           Code = "NOT_OWNER"
	CodeInvalidPrice       Code = "INVALID_PRICE"
	CodeInvalidItem        Code = "INVALID_ITEM"
	CodeListingLimit       Code = "LISTING_LIMIT"
	CodeCooldown           Code = "COOLDOWN"
	CodeItemNotInInventory Code = "ITEM_NOT_IN_INVENTORY"
	CodeBlacklisted        Code = "BLACKLISTED_ITEM"
	CodeInsufficientFunds  Code = "INSUFFICIENT_FUNDS"
	CodeListingReserved    Code = "LISTING_RESERVED"
	CodeListingExpired     Code = "LISTING_EXPIRED"
	CodeOwnListing         Code = "OWN_LISTING"
	CodeInventoryFull      Code = "INVENTORY_FULL"
	CodeMailboxEmpty       Code = "MAILBOX_EMPTY"
	CodeInvalidQuery       Code = "INVALID_QUERY"
	CodeStore              Code = "STORE"
	// CodeConflict: in a shared market, another instance changed what the
	// mutation needed first (bought the listing, say). Nothing was changed;
	// memory has caught up, so a retry sees the other instance's change.
	CodeConflict        Code = "CONFLICT"
	CodeInjectedFailure Code = "INJECTED_FAILURE"
)

// Error is the typed error of every non-contract failure. errors.Is matches
// two *Error values with the same Code, so callers can write
// errors.Is(err, market.ErrInsufficientFunds).
type Error struct {
	Code Code
	Msg  string
	Err  error // underlying cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// Sentinels for errors.Is.
var (
	ErrUnknownListing     = &Error{Code: CodeUnknownListing, Msg: "unknown listing"}
	ErrUnknownPlayer      = &Error{Code: CodeUnknownPlayer, Msg: "unknown player"}
	ErrUnknownTransaction = &Error{Code: CodeUnknownTransaction, Msg: "unknown transaction"}
	ErrNotOwner           = &Error{Code: CodeNotOwner, Msg: "not the owner"}
	ErrInvalidPrice       = &Error{Code: CodeInvalidPrice, Msg: "invalid price"}
	ErrInvalidItem        = &Error{Code: CodeInvalidItem, Msg: "invalid item"}
	ErrListingLimit       = &Error{Code: CodeListingLimit, Msg: "listing limit reached"}
	ErrCooldown           = &Error{Code: CodeCooldown, Msg: "listing cooldown"}
	ErrItemNotInInventory = &Error{Code: CodeItemNotInInventory, Msg: "item not in inventory"}
	ErrBlacklisted        = &Error{Code: CodeBlacklisted, Msg: "blacklisted item"}
	ErrInsufficientFunds  = &Error{Code: CodeInsufficientFunds, Msg: "insufficient funds"}
	ErrListingReserved    = &Error{Code: CodeListingReserved, Msg: "listing reserved"}
	ErrListingExpired     = &Error{Code: CodeListingExpired, Msg: "listing expired"}
	ErrOwnListing         = &Error{Code: CodeOwnListing, Msg: "own listing"}
	ErrInventoryFull      = &Error{Code: CodeInventoryFull, Msg: "inventory full"}
	ErrMailboxEmpty       = &Error{Code: CodeMailboxEmpty, Msg: "mailbox empty"}
	ErrInvalidQuery       = &Error{Code: CodeInvalidQuery, Msg: "invalid query"}
	ErrStore              = &Error{Code: CodeStore, Msg: "store failure"}
	ErrConflictingChange  = &Error{Code: CodeConflict, Msg: "changed by another instance first"}
	ErrInjectedFailure    = &Error{Code: CodeInjectedFailure, Msg: "injected failure"}
)

func errf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

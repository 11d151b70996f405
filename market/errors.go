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

// CodeForbidden is returned when the actor lacks a permission the operation needs.
const CodeForbidden Code = "FORBIDDEN"

// ErrForbidden matches CodeForbidden errors.
var ErrForbidden = &Error{Code: CodeForbidden, Msg: "forbidden"}

// CodeNotRelistable: the mailbox entry has no previous price to relist at.
const CodeNotRelistable Code = "NOT_RELISTABLE"

// Error codes of Refund.
const (
	// CodeNotRefundable: the transaction is not a COMPLETED purchase (or
	// was refunded already).
	CodeNotRefundable Code = "NOT_REFUNDABLE"
	// CodeItemGone: the buyer no longer holds the stack they bought, and
	// the refund was asked to take it back.
	CodeItemGone Code = "ITEM_GONE"
)

// CodeNotRatable: the purchase cannot be rated by this player (not theirs,
// not COMPLETED, rated already), or the stars are not 1 to 5.
const CodeNotRatable Code = "NOT_RATABLE"

// CodeBusy: the change must wait: a purchase is in flight (rules), or the
// history is still loading at start (refunds, ratings).
const CodeBusy Code = "BUSY"

// CodePurchaseCap: the buyer reached the cap on purchases from one seller.
const CodePurchaseCap Code = "PURCHASE_CAP"

// CodeAlertLimit: the player has as many alerts as the market allows.
const CodeAlertLimit Code = "ALERT_LIMIT"

// Codes of auctions.
const (
	// CodeBidTooLow: a bid below the auction's minimum next bid.
	CodeBidTooLow Code = "BID_TOO_LOW"
	// CodeOwnAuction: a seller bidding on their own auction.
	CodeOwnAuction Code = "OWN_AUCTION"
	// CodeAuctionEnded: a bid on an auction whose end has passed.
	CodeAuctionEnded Code = "AUCTION_ENDED"
	// CodeNotAnAuction: a bid on a listing sold at a fixed price.
	CodeNotAnAuction Code = "NOT_AN_AUCTION"
	// CodeIsAnAuction: buying an auction as if it had a fixed price.
	CodeIsAnAuction Code = "IS_AN_AUCTION"
	// CodeAuctionHasBids: the seller taking back an auction that has bids.
	CodeAuctionHasBids Code = "AUCTION_HAS_BIDS"
)

// Codes of buy orders.
const (
	// CodeOrderLimit: the buyer has as many open orders as they may.
	CodeOrderLimit Code = "ORDER_LIMIT"
	// CodeUnknownOrder: no order has the id.
	CodeUnknownOrder Code = "UNKNOWN_ORDER"
	// CodeNotOrderOwner: cancelling someone else's order without market.admin.
	CodeNotOrderOwner Code = "NOT_ORDER_OWNER"
	// CodeOrderClosed: the order was filled, cancelled or expired already.
	CodeOrderClosed Code = "ORDER_CLOSED"
	// CodeNotACommodity: a named, enchanted or lored stack offered to an order.
	CodeNotACommodity Code = "NOT_A_COMMODITY"
	// CodeNoMatchingOrder: no open order buys the stack offered.
	CodeNoMatchingOrder Code = "NO_MATCHING_ORDER"
)

// CodeEventsTrimmed is returned by EventsSince when the log no longer holds
// the entries after the asked seq: the follower must read the market again
// and follow it from the Version of that read.
const CodeEventsTrimmed Code = "EVENTS_TRIMMED"

// ErrEventsTrimmed matches CodeEventsTrimmed errors.
var ErrEventsTrimmed = &Error{Code: CodeEventsTrimmed, Msg: "events trimmed"}

// ErrConflict is returned by Commit when a conditional update matched no row.
var ErrConflict = errors.New("store: conditional update matched no row")

// ErrUnreachable is wrapped by a store's error when it cannot reach its
// database (a cut link, a server that is away), and when a commit's outcome
// is unknown because the link broke before the answer came: the service
// then refuses every change at once, without asking the store, until
// Reacher.Reach reaches it again.
var ErrUnreachable = errors.New("store: the database cannot be reached")

// ErrInDoubt is wrapped by a store's error when the link broke while a
// commit was in flight, before the database said whether it was saved; it
// matches ErrUnreachable too. The outcome is learnt when the store is
// reached again (Reacher.Reach).
var ErrInDoubt = fmt.Errorf("store: the link broke before the database said whether the change was saved: %w", ErrUnreachable)

// ErrBulkOpen is returned by a store's writes while a data load's
// transaction is open (Store.BeginBulk).
var ErrBulkOpen = errors.New("store: a data load is in progress; the market takes no other writes until it ends")

// ErrStoreNotEmpty is returned by NewBulk for a store that has data.
var ErrStoreNotEmpty = errors.New("the market already has players; a bulk load goes into an empty market (merge explicitly to add to one)")

// ErrListingIDTaken is returned by AddListingKeepingID for an id that the
// market may have given already.
var ErrListingIDTaken = errors.New("bulk: the listing id is taken")

func errf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

package market

import (
	"time"

	"github.com/google/uuid"
)

// TestOrigin is the origin of TestEvent's event: no instance has it.
const TestOrigin = "test"

// TestEvent is a sale that did not happen, for checking that a receiver of
// the events (a webhook) gets and reads them: one diamond sold for 1.00 by
// "Test" to "Test", its seq 0 (no entry of the log has it, so a receiver
// that dedupes by seq never takes it for a real one) and its origin
// TestOrigin. It is not in the log and no listener gets it.
func TestEvent(at time.Time) TransactionCompletedEvent {
	test := uuid.NewSHA1(uuid.NameSpaceOID, []byte("rynek test event"))
	at = at.Truncate(time.Millisecond)
	return TransactionCompletedEvent{
		eventBase: eventBase{seq: 0, at: at, origin: TestOrigin},
		tx: Transaction{ID: test.String(), Buyer: test, BuyerName: "Test", Seller: test, SellerName: "Test",
			Item: ItemStack{ID: test, Material: "DIAMOND", Amount: 1}, Price: 1, SellerNet: 1, State: StateCompleted,
			Timeline: []StateTime{{State: StateCreated, At: at}, {State: StateCompleted, At: at}}},
	}
}

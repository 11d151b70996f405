package wire

// ListingGone says how a listing left the market, on the API's 404 for a
// listing no longer on it (the problem's "gone" member): How is "sold",
// "won" (an auction's winner bought it), "unsold" (an auction ended
// without a bid), "expired" (its time ran out), "removed" (its seller
// withdrew it), "admin-removed", "force-expire", or "unknown" (gone
// before the server heard how). A purchase also names its price, buyer and
// transaction.
type ListingGone struct {
	How         string  `json:"how"`
	At          Time    `json:"at,omitzero"`
	Price       string  `json:"price,omitempty"`
	Buyer       *Player `json:"buyer,omitempty"`
	Transaction string  `json:"transaction,omitempty"`
}

package market

// Fee quotes: what the market will charge, for a dialog to show before it
// asks. They are the very rules the sale and the placing apply, so the
// figure shown is the figure charged.

// SaleFee is the sale fee the seller pays on a sale of price (a fixed-price
// sale, or a sale into a buy order).
func (c Config) SaleFee(price Money) Money { return c.fee(price, c.SaleFeeBasisPoints) }

// OrderFee is the placement fee of a buy order that escrows value; none
// unless the rules set one.
func (c Config) OrderFee(value Money) Money {
	if c.Orders.FeeBasisPoints <= 0 {
		return 0
	}
	return c.fee(value, c.Orders.FeeBasisPoints)
}

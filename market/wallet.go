package market

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// Issuance is the market's issuance account: the money and items that came
// into the market from outside it (an admin's deposit or gift, a new
// player's starting balance and inventory) and those that left it (an
// admin's withdrawal or confiscation). Purchases, removals and expiry only
// move money and items, so what the market holds minus what came in plus
// what went out never changes: Audit.OpeningMoney and Audit.OpeningItems,
// what a bulk load (an import, a seed) put there.
type Issuance struct {
	MoneyIn, MoneyOut Money
	ItemsIn, ItemsOut int64 // items, counted by stack amounts
}

// add is the account with d added to it.
func (a Issuance) add(d Issuance) Issuance {
	return Issuance{MoneyIn: a.MoneyIn + d.MoneyIn, MoneyOut: a.MoneyOut + d.MoneyOut, ItemsIn: a.ItemsIn + d.ItemsIn,
		ItemsOut: a.ItemsOut + d.ItemsOut}
}

// sub is the account with d taken from it.
func (a Issuance) sub(d Issuance) Issuance {
	return Issuance{MoneyIn: a.MoneyIn - d.MoneyIn, MoneyOut: a.MoneyOut - d.MoneyOut, ItemsIn: a.ItemsIn - d.ItemsIn,
		ItemsOut: a.ItemsOut - d.ItemsOut}
}

// maxIssue bounds one deposit or withdrawal, as a starting balance is bounded.
const maxIssue = maxStartingBalance

// issue is one entry or exit of money or an item, for the log and the
// account.
type issue struct {
	player uuid.UUID
	money  Money     // >0 in, <0 out
	it     item.Item // mat 0: none
	out    bool      // the item left (TakeItem)
}

// account returns what i adds to the issuance account.
func (i issue) account() Issuance {
	var a Issuance
	if i.money > 0 {
		a.MoneyIn = i.money
	} else {
		a.MoneyOut = -i.money
	}
	if i.it.Mat != 0 {
		if i.out {
			a.ItemsOut = int64(i.it.Amount)
		} else {
			a.ItemsIn = int64(i.it.Amount)
		}
	}
	return a
}

func (a Issuance) plus(b Issuance) Issuance {
	return Issuance{MoneyIn: a.MoneyIn + b.MoneyIn, MoneyOut: a.MoneyOut + b.MoneyOut,
		ItemsIn: a.ItemsIn + b.ItemsIn, ItemsOut: a.ItemsOut + b.ItemsOut}
}

// Deposit adds amount to the player's balance from outside the market (an
// admin's grant, the game's reward), accounted as money in. It returns the
// new balance.
func (s *Service) Deposit(player uuid.UUID, amount float64) (float64, error) {
	return s.moveMoney(player, amount, true)
}

// Withdraw takes amount from the player's balance out of the market,
// accounted as money out; more than the player has is refused. It returns
// the new balance.
func (s *Service) Withdraw(player uuid.UUID, amount float64) (float64, error) {
	return s.moveMoney(player, amount, false)
}

func (s *Service) moveMoney(player uuid.UUID, amount float64, in bool) (float64, error) {
	if err := s.mutGuard(); err != nil {
		return 0, err
	}
	p, err := s.player(player)
	if err != nil {
		return 0, err
	}
	noun := "withdrawal"
	if in {
		noun = "deposit"
	}
	m, err := toMoney(noun, amount, 1, maxIssue)
	if err != nil {
		return 0, err
	}
	if !in {
		if m > p.balance {
			return 0, errf(CodeInsufficientFunds, "%s has %s, less than the withdrawal of %s", p.name, FormatMoney(p.balance), FormatMoney(m))
		}
		m = -m
	} else if p.balance+m > maxBalance {
		return 0, errf(CodeInvalidPrice, "a deposit of %s would take %s's balance past %s", FormatMoney(m), p.name, FormatMoney(maxBalance))
	}
	i := issue{player: p.id, money: m}
	balance := p.balance + m
	if err := s.commitIssue(i, s.playerOp(p, balance, p.lastSell, nil), nil); err != nil {
		return 0, err
	}
	return p.balance.Float(), nil
}

// maxBalance bounds any balance a deposit makes, far below where sums of
// balances could overflow.
const maxBalance Money = 10 * maxStartingBalance

// GiveItem gives the player a new stack from outside the market (an admin's
// gift), accounted as items in: into the first free inventory slot, or the
// mailbox (reason MailGiven) when the inventory is full. The stack gets a
// new ID whatever stack.ID says, so a gift can never copy a stack the market
// holds. It returns the stack as given and whether it went to the mailbox.
func (s *Service) GiveItem(player uuid.UUID, stack ItemStack) (ItemStack, bool, error) {
	if err := s.mutGuard(); err != nil {
		return ItemStack{}, false, err
	}
	p, err := s.player(player)
	if err != nil {
		return ItemStack{}, false, err
	}
	stack.ID = uuid.New()
	it, err := toItem(stack)
	if err != nil {
		return ItemStack{}, false, err
	}
	i := issue{player: p.id, it: it}
	b := &s.batch
	b.Reset()
	to, apply := s.returnTo(b, p, it, MailGiven, 0, s.nowMs())
	if err := s.commitIssue(i, Op{}, apply); err != nil {
		return ItemStack{}, false, err
	}
	return stackOf(it), to.Slot < 0, nil
}

// TakeItem takes the stack in the player's inventory slot (1 to
// InventorySize) out of the market (an admin's confiscation, the game using
// it up), accounted as items out, and returns it.
func (s *Service) TakeItem(player uuid.UUID, slot int) (ItemStack, error) {
	if err := s.mutGuard(); err != nil {
		return ItemStack{}, err
	}
	p, err := s.player(player)
	if err != nil {
		return ItemStack{}, err
	}
	if slot < 1 || slot > InventorySize {
		return ItemStack{}, errf(CodeItemNotInInventory, "slot %d is not an inventory slot (1 to %d)", slot, InventorySize)
	}
	it := p.inv[slot-1]
	if it.Mat == 0 {
		return ItemStack{}, errf(CodeItemNotInInventory, "%s's slot %d is empty", p.name, slot)
	}
	inv := p.inv
	inv[slot-1] = item.Item{}
	i := issue{player: p.id, it: it, out: true}
	if err := s.commitIssue(i, s.playerOp(p, p.balance, p.lastSell, &inv), func() { p.inv[slot-1] = item.Item{} }); err != nil {
		return ItemStack{}, err
	}
	return stackOf(it), nil
}

// commitIssue commits an issue: op, or when op is zero what s.batch holds
// already, with the account's change and the log entry; then apply (unless
// nil) changes memory.
func (s *Service) commitIssue(i issue, op Op, apply func()) error {
	b := &s.batch
	if op.Kind != 0 {
		b.Reset()
		b.add(op)
	}
	b.add(Op{Kind: OpIssuance, Meta: MetaRow{Issuance: i.account()}})
	b.log(EventRow{Kind: KindIssued, At: s.nowMs(), Body: record.EncodeIssued(nil, &record.Issued{
		Player: i.player, Money: int64(i.money), Item: i.it, Out: i.out})})
	if err := s.submit(b, func() {
		if apply != nil {
			apply()
		}
	}, nil); err != nil {
		return err
	}
	return nil
}

// String says what the account holds, for messages and the console.
func (a Issuance) String() string {
	return fmt.Sprintf("money in %s, out %s; items in %d, out %d", FormatMoney(a.MoneyIn), FormatMoney(a.MoneyOut), a.ItemsIn, a.ItemsOut)
}

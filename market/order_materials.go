package market

import (
	"slices"

	"github.com/rynek/rynek/market/catalog"
)

// OrderMaterials returns the catalogue keys of the materials that have open
// buy orders, in alphabetical order: what a browser of the books steps
// through without reading every order. Any goroutine.
func (s *Service) OrderMaterials() ([]string, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	ids := make([]uint16, 0, len(s.orders.open))
	for m := range s.orders.open {
		ids = append(ids, m)
	}
	s.mu.RUnlock()
	keys := make([]string, len(ids))
	for i, m := range ids {
		keys[i] = catalog.Material(m).Key
	}
	slices.Sort(keys)
	return keys, nil
}

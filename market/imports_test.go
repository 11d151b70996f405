package market_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's import path; market is the façade package.
const (
	module    = "github.com/rynek/rynek"
	marketPkg = module + "/market"
)

// stores are the packages that implement market's Store port: they import
// market for it, as litestream's backends import its root package.
var stores = []string{marketPkg + "/sqlite", marketPkg + "/postgres", marketPkg + "/storetest"}

// allowed are the imports the engines under market/internal may have:
// the codecs and the index sit above the catalogue and below the market,
// and none of them reaches across to another's vocabulary.
var allowed = map[string][]string{
	marketPkg + "/internal/item":   {marketPkg + "/catalog"},
	marketPkg + "/internal/record": {marketPkg + "/internal/item", marketPkg + "/catalog"},
	marketPkg + "/internal/search": {marketPkg + "/internal/item", marketPkg + "/catalog", marketPkg + "/playertext"},
}

// TestImportsPointDown holds market/ to the arrows of docs/architecture.md:
// the market package imports nothing of the module outside market/; the
// engines under it (catalog, playertext, internal/...) import neither
// market nor anything outside market/, so that none of them can close a
// cycle with it; nothing under market/ imports the console, the commands or
// the app's internal/ tree; playertext, the leaf, imports nothing of the
// module at all; and the engines under market/internal import only what
// allowed lists. Only the stores import market, for its port.
func TestImportsPointDown(t *testing.T) {
	imports := map[string][]string{} // package -> module packages it imports (tests aside)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		pkg := marketPkg
		if path != "." {
			pkg += "/" + filepath.ToSlash(path)
		}
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imports[pkg] = append(imports[pkg], imp)
			}
		}
		if _, seen := imports[pkg]; !seen {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{marketPkg, marketPkg + "/catalog", marketPkg + "/playertext", marketPkg + "/internal/item", marketPkg + "/internal/record", marketPkg + "/internal/search"} {
		if _, ok := imports[want]; !ok {
			t.Fatalf("the walk did not find %s: %v", want, imports)
		}
	}
	under := func(imp string) bool { return imp == marketPkg || strings.HasPrefix(imp, marketPkg+"/") }
	for pkg, imps := range imports {
		store := slices.Contains(stores, pkg)
		for _, imp := range imps {
			switch {
			case !under(imp):
				t.Errorf("%s imports %s, outside market/: market/ is the ground floor", pkg, imp)
			case imp == marketPkg && pkg != marketPkg && !store:
				t.Errorf("%s imports market: an engine under market/ must not, or it could close a cycle", pkg)
			case pkg == marketPkg+"/playertext":
				t.Errorf("playertext imports %s: it is the leaf, importing nothing of the module", imp)
			case pkg == marketPkg+"/catalog" && imp != marketPkg+"/playertext":
				t.Errorf("catalog imports %s: it may import only playertext", imp)
			case allowed[pkg] != nil && !slices.Contains(allowed[pkg], imp):
				t.Errorf("%s imports %s: it may import only %v", pkg, imp, allowed[pkg])
			}
		}
	}
}

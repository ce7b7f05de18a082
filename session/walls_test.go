package session

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The session's parts are walls, not name spaces (docs/architecture.md,
// "The session and its parts"): a part's unexported fields are read and
// written only by its own methods and its constructor (newConversation
// for Conversation, and so on). Everyone else — the Session, the other
// parts, free functions — goes through the part's methods. These tests
// hold the package to that.

// parts are the session's parts: the struct types whose fields are walled.
// TestWallsPartsListed keeps the list whole.
var parts = []string{"Conversation", "Compression", "Drafting", "Geometry", "Memory", "Files", "Probe", "Experts", "Steering"}

// wallBreach is code outside part Part that touches one of its unexported
// fields.
type wallBreach struct {
	Pos   token.Position
	Func  string // the function or method the code is in ("" at package level)
	Part  string
	Field string
}

func (b wallBreach) String() string {
	in := b.Func
	if in == "" {
		in = "package level"
	}
	return fmt.Sprintf("%s:%d: %s touches %s.%s", filepath.Base(b.Pos.Filename), b.Pos.Line, in, b.Part, b.Field)
}

// noImports lets the type checker run on the package alone: every import
// fails, and what comes from it is left untyped. The parts and the
// Session are this package's own types, so every selection of a part's
// field is still resolved — which is all the check needs, and it keeps the
// test from compiling the engine from source.
type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, errors.New("not imported")
}

// checkWalls type-checks files (one package) and returns every place where
// code that is neither a method of part P nor P's constructor (newP)
// selects one of P's unexported fields, or names one in a composite
// literal of P. It also returns how many in-wall touches it saw, so a
// caller can tell the check found the parts at all.
func checkWalls(fset *token.FileSet, files []*ast.File, partNames []string) (breaches []wallBreach, inside int, err error) {
	info := &types.Info{
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Types:      map[ast.Expr]types.TypeAndValue{},
	}
	conf := types.Config{Importer: noImports{}, Error: func(error) {}}
	pkg, _ := conf.Check("session", fset, files, info) // errors from the missing imports are expected

	walled := map[*types.Named]string{}
	for _, p := range partNames {
		obj := pkg.Scope().Lookup(p)
		if obj == nil {
			return nil, 0, fmt.Errorf("part %s: no such type", p)
		}
		named, ok := obj.Type().(*types.Named)
		if !ok {
			return nil, 0, fmt.Errorf("part %s: not a named type", p)
		}
		if _, ok := named.Underlying().(*types.Struct); !ok {
			return nil, 0, fmt.Errorf("part %s: not a struct", p)
		}
		walled[named] = p
	}
	partOf := func(t types.Type) (string, bool) {
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		named, ok := t.(*types.Named)
		if !ok {
			return "", false
		}
		p, ok := walled[named]
		return p, ok
	}

	for _, f := range files {
		for _, decl := range f.Decls {
			owner, name := "", ""
			var body ast.Node = decl
			if fd, ok := decl.(*ast.FuncDecl); ok {
				name = fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					if p, ok := partOf(info.Types[fd.Recv.List[0].Type].Type); ok {
						owner = p
					}
					name = recvName(fd.Recv.List[0].Type) + "." + name
				} else if p, ok := strings.CutPrefix(fd.Name.Name, "new"); ok && slices.Contains(partNames, p) {
					owner = p // the constructor
				}
			}
			ast.Inspect(body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					sel := info.Selections[n]
					if sel == nil || sel.Kind() != types.FieldVal {
						return true
					}
					field := sel.Obj()
					if field.Exported() {
						return true
					}
					// The field's owner is the struct it is declared in:
					// the last hop of the selection's path.
					p, ok := fieldOwner(sel, partOf)
					if !ok {
						return true
					}
					if p == owner {
						inside++
						return true
					}
					breaches = append(breaches, wallBreach{Pos: fset.Position(n.Sel.Pos()), Func: name, Part: p, Field: field.Name()})
				case *ast.CompositeLit:
					p, ok := partOf(info.Types[n].Type)
					if !ok {
						return true
					}
					for _, e := range n.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok {
							// A positional literal sets every field.
							if p == owner {
								inside++
							} else {
								breaches = append(breaches, wallBreach{Pos: fset.Position(e.Pos()), Func: name, Part: p, Field: "(positional)"})
							}
							continue
						}
						key, ok := kv.Key.(*ast.Ident)
						if !ok || ast.IsExported(key.Name) {
							continue
						}
						if p == owner {
							inside++
							continue
						}
						breaches = append(breaches, wallBreach{Pos: fset.Position(key.Pos()), Func: name, Part: p, Field: key.Name})
					}
				}
				return true
			})
		}
	}
	sort.Slice(breaches, func(i, j int) bool {
		a, b := breaches[i].Pos, breaches[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return breaches, inside, nil
}

// fieldOwner is the part whose struct declares the selected field: for
// x.f that is x's type; through an embedded field, the last struct the
// path walks into.
func fieldOwner(sel *types.Selection, partOf func(types.Type) (string, bool)) (string, bool) {
	t := sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		st, ok := derefStruct(t)
		if !ok {
			return "", false
		}
		t = st.Field(i).Type()
	}
	return partOf(t)
}

func derefStruct(t types.Type) (*types.Struct, bool) {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

// recvName is a receiver's type as written, for the report: "*Session".
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	}
	return "?"
}

// packageFiles parses this package's non-test Go files.
func packageFiles(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no Go files in the package")
	}
	return fset, files
}

// TestWalls fails, naming file:line, wherever code outside a part touches
// the part's unexported fields.
func TestWalls(t *testing.T) {
	fset, files := packageFiles(t)
	breaches, inside, err := checkWalls(fset, files, parts)
	if err != nil {
		t.Fatal(err)
	}
	// The parts' own methods touch their fields all the time: seeing none
	// would mean the check no longer recognises the parts.
	if inside < 100 {
		t.Fatalf("only %d field touches inside the parts: the check has lost track of them", inside)
	}
	for _, b := range breaches {
		t.Error(b)
	}
	if len(breaches) > 0 {
		t.Logf("%d touches through a part's wall; go through the part's methods (docs/architecture.md, \"The session and its parts\")", len(breaches))
	}
}

// TestWallsPartsListed keeps parts whole: every struct type that holds its
// session (a field of type *Session) is a part.
func TestWallsPartsListed(t *testing.T) {
	_, files := packageFiles(t)
	var found []string
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					if star, ok := fld.Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok && id.Name == "Session" {
							found = append(found, ts.Name.Name)
						}
					}
				}
			}
		}
	}
	for _, p := range found {
		if !slices.Contains(parts, p) {
			t.Errorf("%s holds a *Session but is not in parts: a new part must be walled too", p)
		}
	}
	for _, p := range parts {
		if !slices.Contains(found, p) {
			t.Errorf("part %s holds no *Session", p)
		}
	}
}

// TestWallsPartFiles checks each part lives in the file named after it:
// Conversation's type, constructor and methods in conversation.go, and so
// on.
func TestWallsPartFiles(t *testing.T) {
	fset, files := packageFiles(t)
	home := func(part string) string { return strings.ToLower(part) + ".go" }
	declared := map[string]bool{}
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		misplaced := func(at token.Pos, what, part string) {
			if file != home(part) {
				t.Errorf("%s:%d: %s belongs in %s", file, fset.Position(at).Line, what, home(part))
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok && slices.Contains(parts, ts.Name.Name) {
						declared[ts.Name.Name] = true
						misplaced(ts.Pos(), "type "+ts.Name.Name, ts.Name.Name)
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil {
					if p, ok := strings.CutPrefix(d.Name.Name, "new"); ok && slices.Contains(parts, p) {
						misplaced(d.Pos(), d.Name.Name, p)
					}
					continue
				}
				if len(d.Recv.List) != 1 {
					continue
				}
				if recv := strings.TrimPrefix(recvName(d.Recv.List[0].Type), "*"); slices.Contains(parts, recv) {
					misplaced(d.Pos(), recv+"."+d.Name.Name, recv)
				}
			}
		}
	}
	if len(declared) != len(parts) {
		t.Errorf("found the types of %d parts of %d", len(declared), len(parts))
	}
}

// wallsFixture is a package with two parts, A and B, and code on both
// sides of their walls. Its one import is not resolved, as the package's
// are not.
const wallsFixture = `package session

import "strings"

type Session struct {
	a *A
	b *B
	n int
}

type A struct {
	s *Session
	x int
	Y int
}

type B struct {
	s *Session
	y int
}

func newA(s *Session) *A { return &A{s: s, x: 1} }

func (a *A) get() int { return a.x + a.s.n }

func (a *A) closure() func() int { return func() int { return a.x } }

func (a *A) twin(o *A) int { return o.x }

func (s *Session) peek() int { return s.a.x }

func (s *Session) poke() { s.a.x = 2 }

func (s *Session) public() int { return s.a.Y + s.a.get() }

func (b *B) across() int { return b.y + b.s.a.x }

func (s *Session) viaImport() string {
	return strings.Map(func(r rune) rune { s.b.y++; return r }, "")
}

func build(s *Session) *A { return &A{s: s} }

var leak = func(s *Session) int { return s.a.x }
`

// TestWallsCatches runs the check on wallsFixture: it must name each
// breach, at its line, and nothing else.
func TestWallsCatches(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixture.go", wallsFixture, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	breaches, inside, err := checkWalls(fset, []*ast.File{f}, []string{"A", "B"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range breaches {
		got = append(got, b.String())
	}
	want := []string{
		"fixture.go:30: *Session.peek touches A.x",
		"fixture.go:32: *Session.poke touches A.x",
		"fixture.go:36: *B.across touches A.x",
		"fixture.go:39: *Session.viaImport touches B.y",
		"fixture.go:42: build touches A.s",
		"fixture.go:44: package level touches A.x",
	}
	if !slices.Equal(got, want) {
		t.Errorf("breaches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// newA's literal (s, x), get (x, s), the closure (x), twin (o.x),
	// across (b.y, b.s).
	if inside != 8 {
		t.Errorf("%d touches inside the walls, want 8", inside)
	}
	if _, _, err := checkWalls(fset, []*ast.File{f}, []string{"C"}); err == nil {
		t.Error("a part that does not exist was not reported")
	}
}

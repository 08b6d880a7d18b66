// Command apiuse lists the exported identifiers of one package of this
// module and the packages outside it that use each, to keep the package's
// API to what its users need:
//
//	go run ./internal/apiuse ./emu
//
// It reads source only (go/parser, no type checking): a package-level name
// is used where a file that imports the package selects it (emu.Launch);
// a method or field is counted as used where a file that imports the
// package selects any member of that name, which may count too many uses
// but never too few. Files of the package itself, its external tests
// included, are not users.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list every identifier with its users")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/apiuse [-v] ./PKGDIR (from the module root)")
		os.Exit(2)
	}
	if err := run(filepath.Clean(flag.Arg(0)), *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "apiuse:", err)
		os.Exit(1)
	}
}

func run(dir string, verbose bool) error {
	mod, err := modulePath("go.mod")
	if err != nil {
		return err
	}
	importPath := path.Join(mod, filepath.ToSlash(dir))
	api, err := exported(dir)
	if err != nil {
		return err
	}
	users, err := uses(dir, importPath, mod)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(api))
	for n := range api {
		names = append(names, n)
	}
	sort.Strings(names)
	outside := 0
	for _, n := range names {
		pkgs := users[lastPart(n)]
		if !strings.Contains(n, ".") {
			pkgs = users["."+n]
		}
		if len(pkgs) > 0 {
			outside++
		}
		if verbose {
			fmt.Printf("%-8s %-40s %s\n", api[n], n, strings.Join(sorted(pkgs), " "))
		}
	}
	fmt.Printf("%s: %d exported identifiers (%d package-level), %d used outside it\n", importPath, len(names), countTop(names), outside)
	return nil
}

func lastPart(n string) string { return n[strings.LastIndexByte(n, '.')+1:] }

func countTop(names []string) int {
	n := 0
	for _, s := range names {
		if !strings.Contains(s, ".") {
			n++
		}
	}
	return n
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("run from the module root: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("no module line in %s", gomod)
}

// exported returns the package's exported names, "Name" for package-level
// ones and "Type.Member" for methods and fields of exported types, each
// with its kind.
func exported(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	api := map[string]string{}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			addDecl(api, d)
		}
	}
	return api, nil
}

func addDecl(api map[string]string, d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return
		}
		if d.Recv == nil {
			api[d.Name.Name] = "func"
		} else if t := recvType(d.Recv.List[0].Type); ast.IsExported(t) {
			api[t+"."+d.Name.Name] = "method"
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !s.Name.IsExported() {
					continue
				}
				api[s.Name.Name] = "type"
				if st, ok := s.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						for _, n := range f.Names {
							if n.IsExported() {
								api[s.Name.Name+"."+n.Name] = "field"
							}
						}
					}
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						api[n.Name] = d.Tok.String()
					}
				}
			}
		}
	}
}

func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// uses maps ".Name" (a package-level name selected through the import)
// and "Name" (any member selected in an importing file) to the packages
// whose files use them.
func uses(dir, importPath, mod string) (map[string]map[string]bool, error) {
	users := map[string]map[string]bool{}
	add := func(k, pkg string) {
		if users[k] == nil {
			users[k] = map[string]bool{}
		}
		users[k][pkg] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != "." && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(p, ".go") || filepath.Dir(p) == dir {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil // not this tool's business
		}
		local := importName(f, importPath)
		if local == "" {
			return nil
		}
		pkg := path.Join(mod, filepath.ToSlash(filepath.Dir(p)))
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
					add("."+sel.Sel.Name, pkg)
				} else {
					add(sel.Sel.Name, pkg)
				}
			}
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok {
					add(k.Name, pkg) // a field named in a composite literal
				}
			}
			return true
		})
		return nil
	})
	return users, err
}

// importName returns the name f refers to importPath by, or "".
func importName(f *ast.File, importPath string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == importPath {
			if im.Name != nil {
				return im.Name.Name
			}
			return path.Base(importPath)
		}
	}
	return ""
}

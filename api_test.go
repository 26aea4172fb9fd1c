package cachebench_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api/*.txt with the current public API")

const module = "github.com/cachebench/cachebench"

// publicPackages are the packages other modules may import, by their
// directory in the module; everything else is internal.
var publicPackages = []string{".", "cachetest", "shardcache", "mmapstore", "cachetrace"}

// TestAPI renders the public API (every exported name of the public
// packages with its type or signature, and for types, their exported
// fields and methods, which for an alias are those of the internal type it
// names) and compares it with testdata/api/<package>.txt. A change of a
// public signature, also one made inside internal/ behind an alias, fails
// here until the file is rewritten (go test . -run TestAPI -update) and
// the change is in CHANGELOG.md.
func TestAPI(t *testing.T) {
	imp := exportImporter(t)
	for _, dir := range publicPackages {
		path := module
		if dir != "." {
			path += "/" + dir
		}
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		got := renderAPI(pkg)
		file := filepath.Join("testdata", "api", pkg.Name()+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (create it with go test . -run TestAPI -update)", err)
		}
		if got != string(want) {
			t.Errorf("the public API of %s changed; if that is intended, add a CHANGELOG.md entry and run go test . -run TestAPI -update\n%s",
				path, lineDiff(string(want), got))
		}
	}
}

// exportImporter imports packages from the compiler's export data, which
// `go list -export` builds (or finds in the build cache).
func exportImporter(t *testing.T) types.Importer {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Export"}
	for _, d := range publicPackages {
		args = append(args, "./"+d)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
}

// qualifier names packages of this module by their directory (the root
// package as cachebench), others by their import path.
func qualifier(p *types.Package) string {
	switch {
	case p.Path() == module:
		return "cachebench"
	case strings.HasPrefix(p.Path(), module+"/"):
		return strings.TrimPrefix(p.Path(), module+"/")
	}
	return p.Path()
}

func renderAPI(pkg *types.Package) string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", name, types.TypeString(o.Type(), qualifier), o.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, types.TypeString(o.Type(), qualifier))
		case *types.Func:
			add("func %s%s", name, strings.TrimPrefix(types.TypeString(o.Type(), qualifier), "func"))
		case *types.TypeName:
			if o.IsAlias() {
				add("type %s = %s", name, types.TypeString(types.Unalias(o.Type()), qualifier))
			} else if _, ok := o.Type().Underlying().(*types.Struct); ok {
				// A struct's exported fields are listed as members; its
				// unexported ones are not part of the API.
				add("type %s struct", name)
			} else {
				add("type %s %s", name, types.TypeString(o.Type().Underlying(), qualifier))
			}
			lines = append(lines, members(name, types.Unalias(o.Type()))...)
		}
	}
	sort.Strings(lines)
	return "pkg " + pkg.Path() + "\n" + strings.Join(lines, "\n") + "\n"
}

// members lists the exported fields (of a struct) or methods (of an
// interface, or the method set of *T) of the type named name.
func members(name string, t types.Type) []string {
	var out []string
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if f := u.Field(i); f.Exported() {
				out = append(out, fmt.Sprintf("field %s.%s %s", name, f.Name(), types.TypeString(f.Type(), qualifier)))
			}
		}
	case *types.Interface:
		for i := 0; i < u.NumMethods(); i++ {
			if m := u.Method(i); m.Exported() {
				out = append(out, fmt.Sprintf("method %s.%s%s", name, m.Name(), strings.TrimPrefix(types.TypeString(m.Type(), qualifier), "func")))
			}
		}
		return out
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := 0; i < ms.Len(); i++ {
		if m := ms.At(i).Obj(); m.Exported() {
			out = append(out, fmt.Sprintf("method (*%s) %s%s", name, m.Name(), strings.TrimPrefix(types.TypeString(m.Type(), qualifier), "func")))
		}
	}
	return out
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// TestAPIDocComments checks that every exported name of the public
// packages has a doc comment (a name in a documented group counts), so
// that go doc reads as a manual.
func TestAPIDocComments(t *testing.T) {
	for _, dir := range publicPackages {
		d, err := packageDoc(dir)
		if err != nil {
			t.Fatal(err)
		}
		{
			if strings.TrimSpace(d.Doc) == "" {
				t.Errorf("package %s has no package doc", dir)
			}
			values := append(append([]*doc.Value{}, d.Consts...), d.Vars...)
			for _, tp := range d.Types {
				if tp.Doc == "" {
					t.Errorf("%s: type %s has no doc comment", dir, tp.Name)
				}
				values = append(append(values, tp.Consts...), tp.Vars...)
				for _, f := range append(tp.Funcs, tp.Methods...) {
					if f.Doc == "" {
						t.Errorf("%s: %s has no doc comment", dir, f.Name)
					}
				}
			}
			for _, f := range d.Funcs {
				if f.Doc == "" {
					t.Errorf("%s: func %s has no doc comment", dir, f.Name)
				}
			}
			for _, v := range values {
				if v.Doc != "" {
					continue
				}
				for _, spec := range v.Decl.Specs {
					vs := spec.(*ast.ValueSpec)
					if vs.Doc == nil && vs.Comment == nil {
						t.Errorf("%s: %s has no doc comment", dir, vs.Names[0].Name)
					}
				}
			}
		}
	}
}

// packageDoc reads the doc of the package in dir from its non-test files.
func packageDoc(dir string) (*doc.Package, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return doc.NewFromFiles(fset, files, "github.com/cachebench/cachebench/"+filepath.ToSlash(dir))
}

// go doc shows a type's methods only when the package declares them: for
// an alias of an internal type, `go doc PKG T.Method` fails. The engines'
// types that have methods are therefore types of the public package whose
// methods forward to the engine's; an alias is kept only for types whose
// methods are those every value of its kind has (String, Error, Is) or for
// interfaces, whose doc comments list their methods.
func TestPublicMethodsAreDeclaredHere(t *testing.T) {
	imp := exportImporter(t)
	plain := map[string]bool{"String": true, "Error": true, "Is": true}
	for _, dir := range []string{"shardcache", "mmapstore"} {
		pkg, err := imp.Import(module + "/" + dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || !tn.IsAlias() {
				continue
			}
			target := types.Unalias(tn.Type())
			if types.IsInterface(target) {
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(target))
			for i := 0; i < ms.Len(); i++ {
				if m := ms.At(i).Obj(); m.Exported() && !plain[m.Name()] {
					t.Errorf("%s.%s is an alias of %s, whose method %s go doc cannot show: declare the type in %s",
						dir, name, types.TypeString(target, qualifier), m.Name(), dir)
				}
			}
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// platforms are the builds whose API is dumped: the library builds on
// each (scripts/test vets them). A line that not all of them have names
// the ones that do.
var platforms = []string{"linux/amd64", "darwin/arm64", "windows/amd64"}

// goList runs go list in dir for platform (GOOS/GOARCH; "": this one),
// with args.
func goList(dir, platform string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if platform != "" {
		goos, goarch, _ := strings.Cut(platform, "/")
		cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH="+goarch)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s (%s): %v\n%s", strings.Join(args, " "), platform, err, stderr.Bytes())
	}
	return out, nil
}

// publicPackages returns the import paths of the module's public
// packages for platform: every package but commands, those under an
// internal directory, and directories of tests alone (scripts).
func publicPackages(dir, platform string) ([]string, error) {
	out, err := goList(dir, platform, "-f", "{{.ImportPath}} {{.Name}} {{len .GoFiles}}", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		path, name, files := f[0], f[1], f[2]
		if name == "main" || files == "0" || slices.Contains(strings.Split(path, "/"), "internal") {
			continue
		}
		pkgs = append(pkgs, path)
	}
	return pkgs, nil
}

// dumpAll returns the API lines of the module in dir, sorted: a line
// every platform has as it is, one the others lack with the platforms
// that have it ("pkg P (linux-amd64), ...").
func dumpAll(dir string) ([]string, error) {
	count := map[string][]string{} // line -> the platforms that have it
	for _, p := range platforms {
		lines, err := dumpPlatform(dir, p)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			count[l] = append(count[l], strings.ReplaceAll(p, "/", "-"))
		}
	}
	var out []string
	for l, ps := range count {
		if len(ps) < len(platforms) {
			pkg, rest, _ := strings.Cut(l, ", ")
			l = fmt.Sprintf("%s (%s), %s", pkg, strings.Join(ps, ", "), rest)
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out, nil
}

// dumpPlatform returns the API lines of the module's public packages as
// built for platform, from the compiler's export data (go list -export
// builds it, or finds it in the build cache).
func dumpPlatform(dir, platform string) ([]string, error) {
	pkgs, err := publicPackages(dir, platform)
	if err != nil || len(pkgs) == 0 {
		return nil, err
	}
	out, err := goList(dir, platform, append([]string{"-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, pkgs...)...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("reading the API of %s (%s): %v", path, platform, err)
		}
		lines = append(lines, pkgLines(pkg)...)
	}
	return lines, nil
}

// pkgLines returns the API lines of one package: every exported name with
// its type, a line each, as the Go project's api/*.txt files have them.
func pkgLines(pkg *types.Package) []string {
	prefix := "pkg " + pkg.Path() + ", "
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	var typ func(t types.Type) string
	typ = func(t types.Type) string { return typeString(t, qual, typ) }
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", name, typ(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func %s%s%s", name, typeParams(sig.TypeParams(), typ), signature(sig, typ))
		case *types.TypeName:
			lines = append(lines, typeLines(prefix, obj, typ)...)
		}
	}
	return lines
}

// typeLines returns the lines of an exported type: its kind, then its
// exported fields, interface methods and methods, a line each.
func typeLines(prefix string, obj *types.TypeName, typ func(types.Type) string) []string {
	name := obj.Name()
	if obj.IsAlias() {
		return []string{fmt.Sprintf("%stype %s = %s", prefix, name, typ(obj.Type()))}
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return []string{fmt.Sprintf("%stype %s %s", prefix, name, typ(obj.Type().Underlying()))}
	}
	name += typeParams(named.TypeParams(), typ)
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add("type %s struct", name)
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case !f.Exported():
			case f.Embedded():
				add("type %s struct, embedded %s", name, typ(f.Type()))
			default:
				add("type %s struct, %s %s", name, f.Name(), typ(f.Type()))
			}
		}
	case *types.Interface:
		add("type %s interface", name)
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				add("type %s interface, unexported methods", name)
				continue
			}
			add("type %s interface, %s%s", name, m.Name(), signature(m.Type().(*types.Signature), typ))
		}
	default:
		add("type %s %s", name, typ(u))
	}
	// The method set of *T has every method callable on a T variable,
	// promoted ones included; a value receiver is shown as such.
	ms := types.NewMethodSet(types.NewPointer(named))
	values := types.NewMethodSet(named)
	for i := range ms.Len() {
		m := ms.At(i).Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		recv := "*" + obj.Name()
		if values.Lookup(m.Pkg(), m.Name()) != nil {
			recv = obj.Name()
		}
		add("method (%s) %s%s", recv, m.Name(), signature(m.Type().(*types.Signature), typ))
	}
	slices.Sort(lines[1:])
	return lines
}

// typeParams writes a type parameter list, "[K comparable, V any]", or ""
// for none.
func typeParams(tps *types.TypeParamList, typ func(types.Type) string) string {
	if tps.Len() == 0 {
		return ""
	}
	ps := make([]string, tps.Len())
	for i := range ps {
		ps[i] = tps.At(i).Obj().Name() + " " + typ(tps.At(i).Constraint())
	}
	return "[" + strings.Join(ps, ", ") + "]"
}

// signature writes a function's parameter and result types, without
// names: renaming a parameter changes no caller.
func signature(sig *types.Signature, typ func(types.Type) string) string {
	params := make([]string, sig.Params().Len())
	for i := range params {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == len(params)-1 {
			params[i] = "..." + typ(t.(*types.Slice).Elem())
			continue
		}
		params[i] = typ(t)
	}
	s := "(" + strings.Join(params, ", ") + ")"
	switch n := sig.Results().Len(); n {
	case 0:
	case 1:
		s += " " + typ(sig.Results().At(0).Type())
	default:
		results := make([]string, n)
		for i := range results {
			results[i] = typ(sig.Results().At(i).Type())
		}
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// typeString is types.TypeString without the parameter names of the
// function types in t; typ writes the types t is made of.
func typeString(t types.Type, qual types.Qualifier, typ func(types.Type) string) string {
	switch t := t.(type) {
	case *types.Signature:
		return "func" + signature(t, typ)
	case *types.Pointer:
		return "*" + typ(t.Elem())
	case *types.Slice:
		return "[]" + typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typ(t.Elem()))
	case *types.Map:
		return "map[" + typ(t.Key()) + "]" + typ(t.Elem())
	case *types.Chan:
		prefix := map[types.ChanDir]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}[t.Dir()]
		if e, ok := t.Elem().(*types.Chan); ok && t.Dir() == types.SendRecv && e.Dir() == types.RecvOnly {
			return prefix + "(" + typ(e) + ")"
		}
		return prefix + typ(t.Elem())
	case *types.Named:
		if args := t.TypeArgs(); args.Len() > 0 {
			list := make([]string, args.Len())
			for i := range list {
				list[i] = typ(args.At(i))
			}
			name := t.Obj().Name()
			if q := qual(t.Obj().Pkg()); q != "" {
				name = q + "." + name
			}
			return name + "[" + strings.Join(list, ", ") + "]"
		}
	}
	return types.TypeString(t, qual)
}

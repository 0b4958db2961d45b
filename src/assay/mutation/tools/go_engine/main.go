// Command go_engine lists the mutants of Go source files as JSON lines, one per mutant, from go/ast:
// the operator's exact byte span and its replacement, so the caller writes each mutant as a file
// copy and runs `go test -overlay` on it (the project's tree is never rewritten). The operators are
// gremlins' defaults (arithmetic base, conditionals boundary and negation, increment/decrement,
// invert negatives) plus invert assignments (`+=` <-> `-=`, an accumulator's usual bug) and what
// PIT's and StrykerJS's defaults change that gremlins' do not: a condition that is no comparison
// negated (`if ok`, `if !done`), `&&` <-> `||`, `true` <-> `false`, and a call whose results are
// dropped removed (PIT's void method calls; logging, printing, locks and panics left alone, as
// PIT's avoidCallsTo leaves logging). Without them code made of calls and bare conditions (slug's
// SubstituteRune) had no mutant: a test asserting nothing of it was never measured.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

type mutant struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Col         int    `json:"col"` // 1-based, bytes
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Operator    string `json:"operator"`
	Function    string `json:"function"`
	// the function's body, first and last line: gate 4 counts only functions the tests run
	BodyFrom int `json:"body_from"`
	BodyTo   int `json:"body_to"`
}

var binary = map[token.Token][]struct {
	to token.Token
	op string
}{
	token.ADD: {{token.SUB, "ARITHMETIC_BASE"}},
	token.SUB: {{token.ADD, "ARITHMETIC_BASE"}},
	token.MUL: {{token.QUO, "ARITHMETIC_BASE"}},
	token.QUO: {{token.MUL, "ARITHMETIC_BASE"}},
	token.REM: {{token.MUL, "ARITHMETIC_BASE"}},
	token.LSS: {{token.LEQ, "CONDITIONALS_BOUNDARY"}, {token.GEQ, "CONDITIONALS_NEGATION"}},
	token.LEQ: {{token.LSS, "CONDITIONALS_BOUNDARY"}, {token.GTR, "CONDITIONALS_NEGATION"}},
	token.GTR: {{token.GEQ, "CONDITIONALS_BOUNDARY"}, {token.LEQ, "CONDITIONALS_NEGATION"}},
	token.GEQ: {{token.GTR, "CONDITIONALS_BOUNDARY"}, {token.LSS, "CONDITIONALS_NEGATION"}},
	token.EQL: {{token.NEQ, "CONDITIONALS_NEGATION"}},
	token.NEQ: {{token.EQL, "CONDITIONALS_NEGATION"}},
}

func main() {
	out := json.NewEncoder(os.Stdout)
	for _, path := range os.Args[1:] {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		text := func(n ast.Node) string {
			return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
		}
		imports := map[string]bool{}
		for _, spec := range file.Imports {
			path := strings.Trim(spec.Path.Value, "`\"")
			name := path[strings.LastIndex(path, "/")+1:]
			if spec.Name != nil {
				name = spec.Name.Name
			}
			imports[name] = true
		}
		var body [2]int
		emit := func(fn string, pos token.Pos, original, replacement, op string) {
			p := fset.Position(pos)
			out.Encode(mutant{path, p.Line, p.Column, p.Offset, p.Offset + len(original),
				original, replacement, op, fn, body[0], body[1]})
		}
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				name = recv(fd.Recv.List[0].Type) + "." + name
			}
			body = [2]int{fset.Position(fd.Body.Lbrace).Line, fset.Position(fd.Body.Rbrace).Line}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch e := n.(type) {
				case *ast.BinaryExpr:
					if e.Op == token.ADD && (isString(e.X) || isString(e.Y)) {
						return true
					}
					if to, ok := map[token.Token]token.Token{token.LAND: token.LOR,
						token.LOR: token.LAND}[e.Op]; ok {
						emit(name, e.OpPos, e.Op.String(), to.String(), "INVERT_LOGICAL")
					}
					for _, m := range binary[e.Op] {
						emit(name, e.OpPos, e.Op.String(), m.to.String(), m.op)
					}
				case *ast.AssignStmt:
					if to, ok := map[token.Token]token.Token{token.ADD_ASSIGN: token.SUB_ASSIGN,
						token.SUB_ASSIGN: token.ADD_ASSIGN}[e.Tok]; ok {
						emit(name, e.TokPos, e.Tok.String(), to.String(), "INVERT_ASSIGNMENTS")
					}
				case *ast.IncDecStmt:
					to := map[token.Token]token.Token{token.INC: token.DEC, token.DEC: token.INC}[e.Tok]
					emit(name, e.TokPos, e.Tok.String(), to.String(), "INCREMENT_DECREMENT")
				case *ast.UnaryExpr:
					if e.Op == token.SUB {
						emit(name, e.OpPos, "-", "", "INVERT_NEGATIVES")
					}
				case *ast.IfStmt:
					negate(name, e.Cond, text, emit)
				case *ast.ForStmt:
					negate(name, e.Cond, text, emit)
				case *ast.Ident:
					if to, ok := map[string]string{"true": "false", "false": "true"}[e.Name]; ok {
						emit(name, e.Pos(), e.Name, to, "BOOLEAN_LITERAL")
					}
				case *ast.ExprStmt:
					if call, ok := e.X.(*ast.CallExpr); ok && removable(call) {
						emit(name, e.Pos(), text(e), kept(call, text, imports), "CALL_REMOVAL")
					}
				}
				return true
			})
		}
	}
}

func recv(t ast.Expr) string {
	switch x := t.(type) {
	case *ast.StarExpr:
		return recv(x.X)
	case *ast.IndexExpr:
		return recv(x.X)
	case *ast.IndexListExpr:
		return recv(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

func isString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

// negate emits a condition that is no comparison nor `&&`/`||` (those have mutants of their own)
// negated: `ok` -> `!ok`, `!done` -> `done`.
func negate(fn string, cond ast.Expr, text func(ast.Node) string,
	emit func(string, token.Pos, string, string, string)) {
	switch c := cond.(type) {
	case nil, *ast.BinaryExpr:
		return
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			emit(fn, c.OpPos, "!", "", "INVERT_CONDITION")
		}
	case *ast.Ident:
		if c.Name != "true" && c.Name != "false" {
			emit(fn, c.Pos(), c.Name, "!"+c.Name, "INVERT_CONDITION")
		}
	case *ast.CallExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.ParenExpr:
		emit(fn, c.Pos(), text(c), "!"+text(c), "INVERT_CONDITION")
	}
}

// removable: a call statement whose removal is a fault a test can see. Logging and printing
// to the terminal (PIT's default avoidCallsTo), locks and wait groups (their removal hangs or
// crashes the binary, not the code under test) and panics, closes and recovers stay.
func removable(call *ast.CallExpr) bool {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		switch f.Name {
		case "panic", "print", "println", "close", "recover":
			return false
		}
	case *ast.SelectorExpr:
		switch f.Sel.Name {
		case "Lock", "Unlock", "RLock", "RUnlock", "Wait", "Done", "Helper":
			return false
		}
		if pkg, ok := f.X.(*ast.Ident); ok {
			switch pkg.Name {
			case "log", "slog", "glog", "klog":
				return false
			case "fmt":
				return !strings.HasPrefix(f.Sel.Name, "Print")
			}
		}
	}
	return true
}

// kept is what stands in for a removed call: its receiver and arguments, still evaluated and
// used (`buf.WriteString(d)` -> `_ = []interface{}{buf, d}`), so that Go's "declared and not
// used" does not make most removals mutants that do not build (`interface{}`, not `any`: a go.mod
// older than 1.18 refuses `any`).
func kept(call *ast.CallExpr, text func(ast.Node) string, imports map[string]bool) string {
	var items []string
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); !ok || !imports[id.Name] {
			items = append(items, text(sel.X))
		}
	}
	for _, arg := range call.Args {
		items = append(items, text(arg))
	}
	if len(items) == 0 {
		return ""
	}
	return "_ = []interface{}{" + strings.Join(items, ", ") + "}"
}

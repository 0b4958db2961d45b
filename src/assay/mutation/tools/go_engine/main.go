// Command go_engine lists the mutants of Go source files as JSON lines, one per mutant, from go/ast:
// the operator's exact byte span and its replacement, so the caller writes each mutant as a file
// copy and runs `go test -overlay` on it (the project's tree is never rewritten). The operators are
// gremlins' defaults (arithmetic base, conditionals boundary and negation, increment/decrement,
// invert negatives) plus invert assignments (`+=` <-> `-=`, an accumulator's usual bug).
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
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

package grammar

import (
	"strings"
	"testing"
)

// Grammars written for this package exercising the features of llama.cpp's
// grammars/ collection (multi-line rules, camelCase and dashed names, empty
// alternatives, nested groups, bounded repetitions, negated classes with
// escapes, Unicode ranges, comments).
var featureGrammars = map[string]string{
	"arith": `# sums of products
root ::= (expr "=" sp num "\n")+
expr ::= term (("+" | "-") term)*
term ::= factor (("*" | "/") factor)*
factor ::= num | "(" sp expr ")" sp | name
name ::= [a-z] [a-z0-9_]* sp
num ::= [0-9]+ sp
sp ::= [ \t]*
`,
	"code": `root ::= (decl)*

decl ::= kind ident "(" kind? ")" "{" stmt* "}"
kind  ::= "int" ws | "bool" ws
ident ::= [a-zA-Z_] [a-zA-Z_0-9]*
stmt ::=
    ( ident ws "=" ws value ";" ) |
    ( "return" ws value ";" ) |
    ( lineComment ) |
    ( blockComment )
value ::= ident | [0-9]+
lineComment ::= "//" [^\n]* "\n"
blockComment ::= "/*" ( [^*] | ("*" [^/]) )* "*/"
ws ::= ([ \t\n]+)
`,
	"moves": `root    ::= "1. " move " " move "\n" ([1-9] [0-9]? ". " move " " move "\n")+
move    ::= (pawn | piece | castle) [+#]?
piece ::= [NBKQR] [a-h]? [1-8]? "x"? [a-h] [1-8]
pawn    ::= ([a-h] "x")? [a-h] [1-8] ("=" [NBKQR])?
castle  ::= "O-O" "-O"?
`,
	"words": `root        ::= w-char+ ([ \t\n] w-char+)*
w-char      ::= letter | digit | punct
letter      ::= [a-zA-Z]
digit       ::= [0-9]
punct ::= [!"#$%&'()*+,-./:;<=>?@[\\\]^_` + "`" + `{|}~]
`,
	"kana": `root ::= jp+ ([ \t\n] jp+)*
jp ::= [ぁ-ゟ] | [ァ-ヿ] | [、-〾] | [一-鿿]
`,
	"json": `root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws
object ::=
  "{" ws (
            string ":" ws value
    ("," ws string ":" ws value)*
  )? "}" ws
array  ::=
  "[" ws (
            value
    ("," ws value)*
  )? "]" ws
string ::=
  "\"" (
    [^"\\\x7F\x00-\x1F] |
    "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}) # escapes
  )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [0-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
`,
	"lines": `root ::= item+
item ::= "- " [^\r\n\x0b\x0c\x85\u2028\u2029]+ "\n"
`,
}

func TestParseFeatureGrammars(t *testing.T) {
	for name, src := range featureGrammars {
		t.Run(name, func(t *testing.T) {
			g := mustParse(t, src)
			// Round trip: printing and parsing again is a fixed point.
			s1 := g.String()
			g2 := mustParse(t, s1)
			if s2 := g2.String(); s2 != s1 {
				t.Fatalf("round trip differs:\n%s\n---\n%s", s1, s2)
			}
		})
	}
}

func TestParsePrint(t *testing.T) {
	g := mustParse(t, `root ::= "a\"\\\n" [^\]a-c\x2D] . x{2} x{2,} x{0,3} (x | "y")* x? x+ | ""
x ::= "\u00e9\U0001F600\x01"`)
	want := `root ::= "a\"\\\n" [^\]a-c\x2D] . x{2} x{2,} x{0,3} (x | "y")* x? x+ | ""
x ::= "é😀\x01"
`
	if got := g.String(); got != want {
		t.Fatalf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "the grammar is empty"},
		{"# only a comment\n", "the grammar is empty"},
		{`a ::= "x"`, "no rule named root"},
		{`root ::= foo`, `line 1:10: rule "foo" is used but never defined`},
		{"root ::= \"abc", `line 1:10: the string literal "\"abc" is never closed`},
		{"root ::= [abc", `line 1:10: the character class "[abc" is never closed`},
		{"root ::= []", `line 1:10: the character class "[]" is empty`},
		{"root ::= [z-a]", `line 1:11: the range "z-a" in a character class runs backwards`},
		{`root ::= "\q"`, `line 1:11: unknown escape "\\q\""`},
		{`root ::= "\x4"`, `needs 2 hex digits`},
		{`root ::= "\uD800"`, `surrogate U+D800`},
		{`root ::= "\U00110000"`, `beyond the last code point`},
		{"root ::= (\"a\"", `line 1:14: expected ')' to close the group opened at 1:10`},
		{"root ::= * \"a\"", `line 1:10: "*" has nothing before it to repeat`},
		{`root ::= "a"{3,2}`, `line 1:13: the repetition "{3,2}" has its maximum below its minimum`},
		{`root ::= "a"{,2}`, `expected a number in the repetition`},
		{`root ::= "a"{2`, `expected '}' to close the repetition`},
		{`root ::= "a"{99999}`, `larger than 10000`},
		{"root ::= \"a\"\nroot ::= \"b\"", `line 2:1: rule "root" is defined a second time (first at 1:1)`},
		{`root := "a"`, `line 1:6: expected ::= after the rule name "root"`},
		{`root ::= <think>`, `token references`},
		{`root ::= "a" ) "b"`, `line 1:14: expected the end of the line after rule "root"`},
		{"root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"", `line 2:1: rule "expr" is left-recursive`},
		{"root ::= a\na ::= b? a \"x\" | \"y\"\nb ::= \"b\"", `rule "a" is left-recursive`},
		{`root ::= ("a"?)*`, `line 1:16: the repetition "*" repeats something that can match the empty string`},
		{"root ::= \"x\" root", `rule "root" can never finish`},
		{"root ::= [^\\x00-\\U0010FFFF]", `matches no character`},
		{"root ::= \xff", `not valid UTF-8`},
		{"root ::= \"a\"\n  \"b\"", `line 2:3: expected a rule name, found "\"b\""`},
	} {
		_, err := Parse(c.src)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", c.src, c.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", c.src, msg, c.want)
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("Parse(%q): error spans lines: %q", c.src, msg)
		}
	}
}

func TestParseLayout(t *testing.T) {
	// A newline after | continues the rule; inside parentheses newlines are
	// free; CRLF ends a rule; names may be camelCase or dashed.
	g := mustParse(t, "root ::= \"a\" |\r\n  \"b\" | (\r\n\"c\"\r\n  \"d\")\r\nun-used ::= fooBar\r\nfooBar ::= \"z\"")
	checkMatches(t, g, true, "a", "b", "cd")
	checkMatches(t, g, false, "", "c", "z", "ab")
}

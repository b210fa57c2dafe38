package syntax

// Operator tables: canonical names, precedence ranges and associativity, from
// the "Precedence Ranges of Operators" table of the TLA+ summary
// (Specifying Systems, table 6 and the TLA+2 additions).

// opInfo describes one operator. An expression "a op1 b op2 c" groups as
// "(a op1 b) op2 c" when op1's range lies above op2's, and as
// "a op1 (b op2 c)" when op2's lies above op1's; overlapping ranges are only
// legal for the same left-associative operator.
type opInfo struct {
	lo, hi int
	left   bool // left-associative
}

// synonyms maps every alternative spelling to the canonical one.
var synonyms = map[string]string{
	`\union`:     `\cup`,
	`\intersect`: `\cap`,
	`<=`:         `=<`,
	`\leq`:       `=<`,
	`\geq`:       `>=`,
	`/=`:         `#`,
	`\neq`:       `#`,
	`\lnot`:      `~`,
	`\neg`:       `~`,
	`\land`:      `/\`,
	`\lor`:       `\/`,
	`\equiv`:     `<=>`,
	`\times`:     `\X`,
	`\circ`:      `\o`,
	`\oplus`:     `(+)`,
	`\ominus`:    `(-)`,
	`\odot`:      `(.)`,
	`\oslash`:    `(/)`,
	`\otimes`:    `(\X)`,
}

// CanonicalOp returns the canonical spelling of an operator symbol (see the
// comment of ast.go); names that have no synonym are returned unchanged.
func CanonicalOp(sym string) string {
	if c, ok := synonyms[sym]; ok {
		return c
	}
	return sym
}

// infixOps holds every infix operator by canonical name.
var infixOps = map[string]opInfo{
	`=>`:          {1, 1, false},
	`<=>`:         {2, 2, false},
	`~>`:          {2, 2, false},
	`-+->`:        {2, 2, false},
	`/\`:          {3, 3, true},
	`\/`:          {3, 3, true},
	`=`:           {5, 5, false},
	`#`:           {5, 5, false},
	`<`:           {5, 5, false},
	`>`:           {5, 5, false},
	`=<`:          {5, 5, false},
	`>=`:          {5, 5, false},
	`\in`:         {5, 5, false},
	`\notin`:      {5, 5, false},
	`\subseteq`:   {5, 5, false},
	`\subset`:     {5, 5, false},
	`\supseteq`:   {5, 5, false},
	`\supset`:     {5, 5, false},
	`\sqsubset`:   {5, 5, false},
	`\sqsubseteq`: {5, 5, false},
	`\sqsupset`:   {5, 5, false},
	`\sqsupseteq`: {5, 5, false},
	`\prec`:       {5, 5, false},
	`\preceq`:     {5, 5, false},
	`\succ`:       {5, 5, false},
	`\succeq`:     {5, 5, false},
	`\approx`:     {5, 5, false},
	`\asymp`:      {5, 5, false},
	`\cong`:       {5, 5, false},
	`\doteq`:      {5, 5, false},
	`\simeq`:      {5, 5, false},
	`\sim`:        {5, 5, false},
	`\propto`:     {5, 5, false},
	`\ll`:         {5, 5, false},
	`\gg`:         {5, 5, false},
	`|-`:          {5, 5, false},
	`|=`:          {5, 5, false},
	`-|`:          {5, 5, false},
	`=|`:          {5, 5, false},
	`:=`:          {5, 5, false},
	`::=`:         {5, 5, false},
	`\cdot`:       {5, 14, true},
	`@@`:          {6, 6, true},
	`:>`:          {7, 7, false},
	`<:`:          {7, 7, false},
	`\cup`:        {8, 8, true},
	`\cap`:        {8, 8, true},
	`\`:           {8, 8, false},
	`..`:          {9, 9, false},
	`...`:         {9, 9, false},
	`!!`:          {9, 13, true},
	`##`:          {9, 13, true},
	`$`:           {9, 13, true},
	`$$`:          {9, 13, true},
	`??`:          {9, 13, true},
	`\sqcap`:      {9, 13, true},
	`\sqcup`:      {9, 13, true},
	`\uplus`:      {9, 13, true},
	`\wr`:         {9, 14, false},
	`+`:           {10, 10, true},
	`++`:          {10, 10, true},
	`(+)`:         {10, 10, true},
	`%`:           {10, 11, false},
	`%%`:          {10, 11, true},
	`|`:           {10, 11, true},
	`||`:          {10, 11, true},
	`\X`:          {10, 13, true},
	`-`:           {11, 11, true},
	`--`:          {11, 11, true},
	`(-)`:         {11, 11, true},
	`*`:           {13, 13, true},
	`**`:          {13, 13, true},
	`/`:           {13, 13, false},
	`//`:          {13, 13, false},
	`\div`:        {13, 13, false},
	`\o`:          {13, 13, true},
	`\bullet`:     {13, 13, true},
	`\star`:       {13, 13, true},
	`\bigcirc`:    {13, 13, true},
	`(.)`:         {13, 13, true},
	`(/)`:         {13, 13, false},
	`(\X)`:        {13, 13, true},
	`&`:           {13, 13, true},
	`&&`:          {13, 13, true},
	`^`:           {14, 14, false},
	`^^`:          {14, 14, false},
}

// prefixOps holds the prefix operators by canonical name ("-." is unary minus).
var prefixOps = map[string]opInfo{
	`~`:         {4, 4, false},
	`[]`:        {4, 15, false},
	`<>`:        {4, 15, false},
	`ENABLED`:   {4, 15, false},
	`UNCHANGED`: {4, 15, false},
	`SUBSET`:    {8, 8, false},
	`UNION`:     {8, 8, false},
	`DOMAIN`:    {9, 9, false},
	`-.`:        {12, 12, false},
}

// postfixOps holds the postfix operators; all have precedence 15-15.
var postfixOps = map[string]bool{`'`: true, `^+`: true, `^*`: true, `^#`: true}

// IsInfixOp reports whether the canonical name is an infix operator symbol.
func IsInfixOp(name string) bool { _, ok := infixOps[name]; return ok }

// IsPrefixOp reports whether the canonical name is a prefix operator.
func IsPrefixOp(name string) bool { _, ok := prefixOps[name]; return ok }

// IsPostfixOp reports whether the canonical name is a postfix operator.
func IsPostfixOp(name string) bool { return postfixOps[name] }

// backslashWords are the operator and quantifier spellings that start with a
// backslash (without it). Unknown words after a backslash are lexed as set
// difference followed by an identifier.
var backslashWords = map[string]bool{
	"A": true, "E": true, "AA": true, "EE": true, "X": true, "o": true,
	"in": true, "notin": true, "cup": true, "union": true, "cap": true,
	"intersect": true, "subseteq": true, "subset": true, "supseteq": true,
	"supset": true, "times": true, "circ": true, "div": true, "cdot": true,
	"land": true, "lor": true, "lnot": true, "neg": true, "equiv": true,
	"leq": true, "geq": true, "neq": true, "prec": true, "preceq": true,
	"succ": true, "succeq": true, "sqsubset": true, "sqsubseteq": true,
	"sqsupset": true, "sqsupseteq": true, "sqcap": true, "sqcup": true,
	"oplus": true, "ominus": true, "otimes": true, "odot": true,
	"oslash": true, "uplus": true, "star": true, "bullet": true,
	"bigcirc": true, "sim": true, "simeq": true, "approx": true,
	"cong": true, "doteq": true, "asymp": true, "propto": true, "wr": true,
	"ll": true, "gg": true,
}

// symbols are the non-backslash operator and punctuation tokens, longest
// first within each leading character (the lexer tries them in order).
var symbols = []string{
	"-+->", "|->", "::=", "(+)", "(-)", "(.)", "(/)", `(\X)`, "<=>", "...",
	">>_", "==", "=>", "=<", "=|", `/\`, "/=", "//", "<<", ">>", "<=", "<:",
	"<>", ">=", "->", "<-", "--", "-|", "++", "**", "##", "$$", "%%", "&&",
	"||", "|-", "|=", "??", "@@", "^^", "^+", "^*", "^#", "..", "::", ":=",
	":>", "~>", "[]", "!!", "]_",
	"(", ")", "[", "]", "{", "}", "<", ">", "=", "+", "-", "*", "/", "^", "|",
	"&", "$", "%", "#", "!", "@", ":", ",", ".", "'", "~",
}

// unicodeSymbols maps Unicode TLA+ symbols to their ASCII token.
var unicodeSymbols = map[rune]string{
	'≜': "==", '∈': `\in`, '∉': `\notin`, '∧': `/\`, '∨': `\/`, '¬': "~",
	'∀': `\A`, '∃': `\E`, '≠': "#", '≤': "=<", '≥': ">=", '⇒': "=>",
	'⇔': "<=>", '≡': "<=>", '∪': `\cup`, '∩': `\cap`, '⊆': `\subseteq`,
	'⊂': `\subset`, '⊇': `\supseteq`, '⊃': `\supset`, '⟨': "<<", '⟩': ">>",
	'□': "[]", '◇': "<>", '↦': "|->", '→': "->", '←': "<-", '×': `\X`,
	'↝': "~>", '‥': "..", '…': "...", '∘': `\o`, '÷': `\div`, '⋅': `\cdot`,
	'≺': `\prec`, '≻': `\succ`, '⪯': `\preceq`, '⪰': `\succeq`,
	'⊕': "(+)", '⊖': "(-)", '⊙': "(.)", '⊘': "(/)", '⊗': `(\X)`,
	'⊎': `\uplus`, '⊓': `\sqcap`, '⊔': `\sqcup`, '⊏': `\sqsubset`,
	'⊑': `\sqsubseteq`, '⊐': `\sqsupset`, '⊒': `\sqsupseteq`, '⋆': `\star`,
	'●': `\bullet`, '◯': `\bigcirc`, '∼': `\sim`, '≃': `\simeq`,
	'≈': `\approx`, '≅': `\cong`, '≐': `\doteq`, '≍': `\asymp`,
	'∝': `\propto`, '≀': `\wr`, '≪': `\ll`, '≫': `\gg`, '⊢': "|-",
	'⊣': "-|", '⊨': "|=", '⫤': "=|", '≔': ":=", '⩴': "::=", '‼': "!!",
	'⁇': "??", '‖': "||", '⁺': "^+", '⇸': "-+->", '∷': "::",
}

// keywords are the reserved words of TLA+2.
var keywords = map[string]bool{
	"ASSUME": true, "ASSUMPTION": true, "AXIOM": true, "CASE": true,
	"CHOOSE": true, "CONSTANT": true, "CONSTANTS": true, "DOMAIN": true,
	"ELSE": true, "ENABLED": true, "EXCEPT": true, "EXTENDS": true, "IF": true,
	"IN": true, "INSTANCE": true, "LET": true, "LOCAL": true, "MODULE": true,
	"OTHER": true, "SUBSET": true, "THEN": true, "THEOREM": true,
	"UNCHANGED": true, "UNION": true, "VARIABLE": true, "VARIABLES": true,
	"WITH": true, "ACTION": true, "BY": true, "COROLLARY": true, "DEF": true,
	"DEFINE": true, "DEFS": true, "HAVE": true, "HIDE": true, "LAMBDA": true,
	"LEMMA": true, "NEW": true, "OBVIOUS": true, "OMITTED": true, "ONLY": true,
	"PICK": true, "PROOF": true, "PROPOSITION": true, "PROVE": true,
	"QED": true, "RECURSIVE": true, "STATE": true, "SUFFICES": true,
	"TAKE": true, "TEMPORAL": true, "USE": true, "WITNESS": true,
	"TRUE": true, "FALSE": true, "BOOLEAN": true, "STRING": true,
}

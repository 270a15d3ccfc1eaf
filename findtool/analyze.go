package findtool

// Terms is the search terms of text, as the index analyses a description
// or a query: split, lower-cased, stop words dropped, stemmed.
func Terms(s string) []string { return tokenize(s) }

// NameTerms is the search terms of a name or identifier, as the index
// analyses a tool's name (with its camelCase parts joined two by two).
func NameTerms(s string) []string { return tokenizeName(s) }

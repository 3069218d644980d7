// Gnn.g4 - grammar of the .gnn language, version 1 (../shared/spec/language.md).
//
// Deliberate leniencies, all checked later with precise messages:
//  * a SIZE is a number followed, on the same line, by any identifier; the
//    AST builder checks that it is a unit, so a misspelt unit gets "unknown
//    size unit 'Mib'" instead of a generic syntax error. Being one token, a
//    unit never reaches across a line (`epochs = 10` + newline + `seed = 1`
//    is a missing ';', not a unit called 'seed');
//  * `repeat` takes an expression (the spec's INT is the common case) so a
//    model parameter can set the depth; Sema requires a positive integer.
// Bad characters and unterminated strings are tokens of their own so the
// lexer never fails; the parser front end reports them and hides them.
grammar Gnn;

program   : decl* EOF ;
decl      : modelDecl | trainDecl ;

modelDecl : MODEL name=IDENT '(' (param (',' param)*)? ')' block ;
param     : IDENT ('=' expr)? ;
block     : '{' stmt* '}' ;
stmt      : IDENT '=' expr ';'         # assignStmt
          | REPEAT expr block          # repeatStmt
          | RETURN expr ';'            # returnStmt
          ;

trainDecl : TRAIN name=IDENT (lp='(' (arg (',' arg)*)? ')')? ON expr
            '{' setting* '}' ;
setting   : IDENT '=' expr ';' ;

expr      : term (addOp term)* ;
addOp     : '+' | '-' ;
term      : factor ('*' factor)* ;
factor    : '-' factor                      # negFactor
          | call                            # callFactor
          | IDENT                           # identFactor
          | NUMBER                          # numberFactor
          | SIZE                            # sizeFactor
          | STRING                          # stringFactor
          | (TRUE | FALSE)                  # boolFactor
          | '[' (expr (',' expr)*)? ']'     # listFactor
          | '(' expr ')'                    # parenFactor
          ;
call      : IDENT '(' (arg (',' arg)*)? ')' ;
arg       : (IDENT '=')? expr ;

// Punctuation the parser's error messages and recovery reason about gets a
// name, so C++ compares token types (GnnParser::SEMI) rather than text. The
// parser rules' quoted literals map to these tokens.
SEMI   : ';' ;
LPAREN : '(' ;
LBRACK : '[' ;
LBRACE : '{' ;
RBRACE : '}' ;
MINUS  : '-' ;

MODEL  : 'model' ;
TRAIN  : 'train' ;
ON     : 'on' ;
RETURN : 'return' ;
REPEAT : 'repeat' ;
TRUE   : 'true' ;
FALSE  : 'false' ;

IDENT  : [A-Za-z_] [A-Za-z0-9_]* ;
NUMBER : NUM ;
SIZE   : NUM [ \t]* [A-Za-z_] [A-Za-z0-9_]* ;
fragment NUM : DIGITS ('.' DIGITS?)? EXPONENT?
             | '.' DIGITS EXPONENT?
             ;
fragment DIGITS   : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

STRING : '"' ( '\\' ~[\r\n] | ~["\\\r\n] )* '"' ;
UNTERMINATED_STRING : '"' ( '\\' ~[\r\n] | ~["\\\r\n] )* '\\'? ;

LINE_COMMENT : ('#' | '//') ~[\r\n]* -> skip ;
WS           : [ \t\r\n\f]+ -> skip ;
BAD_CHAR     : . ;

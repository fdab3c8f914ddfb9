// Tex.g4 — the grammar of the .tex language (docs/language.md), for ANTLR 4.
//
// The parser only recognises the shape of a file; every meaning (names, types, shapes, which
// calls are ops, which names are loops) is decided by frontend/ on texc's own AST. Newlines are
// not significant; ';' may separate items anywhere a statement may end. Element types ('f32',
// 'i8', ...) and 'int' are ordinary identifiers. Labels (#name) name the AST cases.
grammar Tex;

// ---- top level

program : (topItem | ';')* EOF ;

topItem
  : importDecl
  | paramDecl
  | opDecl
  | intrinsicDecl
  ;

importDecl : IMPORT (module=dottedName | module_name=ID | path=STRING) ;

paramDecl : PARAM name=ID '=' value=expr ;

opDecl
  : OP name=ID '(' paramList? ')' '->' outputs=idList '{' ';'* computeBlock (computeVariant | scheduleBlock | ';')* '}'
  ;

intrinsicDecl
  : INTRINSIC name=ID '(' paramList? ')' '->' outputs=idList '{' ';'* computeBlock ';'* lowerClause ';'* '}'
  ;

lowerClause
  : LOWER EXTERN symbol=STRING     # lowerExtern
  | LOWER kind=ID symbol=STRING (req=ID features=STRING)?  # lowerNamed  // `lower llvm "llvm.x86.avx512.vpdpbusd.512" requires "avx512vnni"`
  | LOWER (dottedName | ID)        # lowerBuiltin
  ;

paramList : param (',' param)* ;

// `X: f32[N, C]` (a tensor), `Wt: const f32[F, C]` (a tensor that does not change between calls),
// `var: f32[C] in 0.0..4.0` (a tensor whose values the op is defined for lie in [0, 4)) or
// `stride: int = 1` (an int attribute).
param : name=ID ':' const_=CONST? type_=ID ('[' dims+=expr (',' dims+=expr)* ']')? (IN lo=expr '..' hi=expr)?
        ('=' default_=expr)? ;

idList : ID (',' ID)* ;

// ---- compute

computeBlock : COMPUTE '{' (computeStmt | ';')* '}' ;

// `compute cpu { ... }`: the op's implementation on the targets a `schedule cpu` block applies to
// (the definition above stays the op's meaning and the reference's); `compute cpu if KH == 1 { ... }`
// applies only where its compile-time condition on the op's params and sizes holds.
computeVariant : COMPUTE target=ID (IF guard=expr)? '{' (computeStmt | ';')* '}' ;

computeStmt
  : name=ID '[' indexDecl (',' indexDecl)* ']' '=' value=expr   # tensorDef
  | idList '=' value=expr                                        # assignStmt
  ;

indexDecl : name=ID (':' extent=expr)? ;

// ---- schedules

scheduleBlock : SCHEDULE target=ID '{' schedItem* '}' ;

schedItem
  : KNOB name=ID IN '[' knobValue (',' knobValue)* ']'    # knobList
  | KNOB name=ID IN FACTORS '(' of=expr ')'              # knobFactors
  | schedIf                                              # schedIfItem
  | (idList '=')? primitive=ID '(' (schedArg (',' schedArg)*)? ')'   # schedApply
  | ';'                                                  # schedEmpty
  ;

knobValue : minus='-'? INT | TRUE | FALSE ;

schedIf : IF cond=expr '{' then_+=schedItem* '}' (ELSE (elseIf=schedIf | '{' else_+=schedItem* '}'))? ;

schedArg : (keyword=ID '=')? (dottedName | expr) ;

dottedName : ID ('.' ID)+ ;

// ---- expressions, loosest binding last

expr
  : '(' inner=expr ')'                                  # parenExpr
  | callee=ID '(' callArgs? ')'                         # callExpr
  | tensor=ID '[' expr (',' expr)* ']'                  # indexExpr
  // `target.vector_bits`, `target.vector_lanes(f32)`, `target.has("fma")` (schedule values only)
  | obj=ID '.' member=ID ('(' (argName=ID | argString=STRING) ')')?   # memberExpr
  | ID                                                  # nameExpr
  | INT                                                 # intLit
  | FLOAT                                               # floatLit
  | (TRUE | FALSE)                                      # boolLit
  | op=('-' | '!') operand=expr                         # unaryExpr
  | lhs=expr op=('*' | '/' | '%') rhs=expr              # binaryExpr
  | lhs=expr op=('+' | '-') rhs=expr                    # binaryExpr
  | lhs=expr op=('<<' | '>>') rhs=expr                  # binaryExpr
  | lhs=expr op=('<' | '<=' | '>' | '>=') rhs=expr      # binaryExpr
  | lhs=expr op=('==' | '!=') rhs=expr                  # binaryExpr
  | lhs=expr op='&&' rhs=expr                           # binaryExpr
  | lhs=expr op='||' rhs=expr                           # binaryExpr
  ;

// Arguments of a call; `for` clauses make it a reduction: sum(A[i, k] for k in 0..K).
callArgs : callArg (',' callArg)* (FOR forClause (',' forClause)*)? ;

callArg : (keyword=ID '=')? value=expr ;

forClause : var=ID IN lo=expr '..' hi=expr ;

// ---- lexical

IMPORT    : 'import' ;
PARAM     : 'param' ;
OP        : 'op' ;
INTRINSIC : 'intrinsic' ;
COMPUTE   : 'compute' ;
CONST     : 'const' ;
SCHEDULE  : 'schedule' ;
LOWER     : 'lower' ;
EXTERN    : 'extern' ;
KNOB      : 'knob' ;
IN        : 'in' ;
FACTORS   : 'factors' ;
IF        : 'if' ;
ELSE      : 'else' ;
FOR       : 'for' ;
TRUE      : 'true' ;
FALSE     : 'false' ;

ID     : [A-Za-z_] [A-Za-z0-9_]* ;
// A float needs digits after the point, so `0..K` lexes as 0 .. K.
FLOAT  : [0-9]+ '.' [0-9]+ EXPONENT? | [0-9]+ EXPONENT ;
INT    : [0-9]+ ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

fragment EXPONENT : [eE] [+-]? [0-9]+ ;

COMMENT : '#' ~[\r\n]* -> skip ;
WS      : [ \t\r\n]+ -> skip ;

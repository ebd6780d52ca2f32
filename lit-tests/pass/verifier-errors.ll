; Malformed contracts are rejected with a message, never a crash inside opt.
; RUN: split-file %s %t
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/no-end.ll -disable-output 2>&1 | FileCheck %s --check-prefix=NOEND
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/bad-clause.ll -disable-output 2>&1 | FileCheck %s --check-prefix=BADCLAUSE
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/reduction.ll -disable-output 2>&1 | FileCheck %s --check-prefix=OLDRED
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/reduction-op.ll -disable-output 2>&1 | FileCheck %s --check-prefix=REDOP
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/reduction-type.ll -disable-output 2>&1 | FileCheck %s --check-prefix=REDTYPE
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/not-a-loop.ll -disable-output 2>&1 | FileCheck %s --check-prefix=NOTLOOP
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/tile-mark.ll -disable-output 2>&1 | FileCheck %s --check-prefix=TILEMARK
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/tile-size.ll -disable-output 2>&1 | FileCheck %s --check-prefix=TILESIZE

; NOEND: t.c:3:9: error: OpenACC 'parallel' (id 1) has no matching __acc_end
; BADCLAUSE: error: malformed OpenACC IR contract in function 'g': clause 'copy' takes (ptr base, i64 lower, i64 length, i64 elem_size, ptr text)
; OLDRED: error: malformed OpenACC IR contract in function 'g': clause 'reduction' takes (ptr op, i64 type, ptr base, i64 lower, i64 length, i64 elem_size, ptr text)
; REDOP: t.c:3:9: error: reduction operator '&' is not defined on 'double' ('s')
; REDTYPE: t.c:3:9: error: reduction on 's': a reduction variable must be an integer, _Bool, float, double or complex variable ('long double' cannot be used in a compute region: the GPU has no arithmetic for it; use 'double')
; NOTLOOP: t.c:4:9: error: an OpenACC 'loop' directive must be followed by a for loop
; TILEMARK: t.c:4:9: error: 'tile' with 2 sizes on a loop that collapses 1: the mark names the n collapsed loops the driver made of a tiled nest
; TILESIZE: error: malformed OpenACC IR contract in function 'g': clause 'tile.element' takes one or more positive constant i64 operands

;--- no-end.ll
@par = private constant [9 x i8] c"parallel\00"
@file = private constant [4 x i8] c"t.c\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
define void @g() {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  ret void
}

;--- bad-clause.ll
@par = private constant [9 x i8] c"parallel\00"
@file = private constant [4 x i8] c"t.c\00"
@copy = private constant [5 x i8] c"copy\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %p) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %p, i32 0)
  call void @__acc_end(i32 1)
  ret void
}

;--- reduction.ll
@par = private constant [9 x i8] c"parallel\00"
@file = private constant [4 x i8] c"t.c\00"
@red = private constant [10 x i8] c"reduction\00"
@plus = private constant [2 x i8] c"+\00"
@s = private constant [2 x i8] c"s\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %sum) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @red, ptr @plus, ptr %sum, i64 0, i64 1, i64 4, ptr @s)
  call void @__acc_end(i32 1)
  ret void
}

;--- not-a-loop.ll
@par = private constant [9 x i8] c"parallel\00"
@loop = private constant [5 x i8] c"loop\00"
@file = private constant [4 x i8] c"t.c\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_end(i32)
define void @g(ptr %p) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void @__acc_begin(i32 2, ptr @loop, ptr @file, i32 4, i32 9)
  store i32 0, ptr %p
  call void @__acc_end(i32 2)
  call void @__acc_end(i32 1)
  ret void
}

;--- tile-mark.ll
; A `tile` mark (written by the driver on the tile loops it made, with collapse(n)) on a loop
; that collapses fewer loops: IR claiming a tiling it does not have.
@par = private constant [9 x i8] c"parallel\00"
@loop = private constant [5 x i8] c"loop\00"
@file = private constant [4 x i8] c"t.c\00"
@tile = private constant [5 x i8] c"tile\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %p, i32 %n) {
entry:
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void @__acc_begin(i32 2, ptr @loop, ptr @file, i32 4, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @tile, i64 8, i64 8)
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  call void @__acc_end(i32 2)
  call void @__acc_end(i32 1)
  ret void
}

;--- tile-size.ll
@par = private constant [9 x i8] c"parallel\00"
@loop = private constant [5 x i8] c"loop\00"
@file = private constant [4 x i8] c"t.c\00"
@elem = private constant [13 x i8] c"tile.element\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %p, i64 %s) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void @__acc_begin(i32 2, ptr @loop, ptr @file, i32 4, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @elem, i64 %s)
  call void @__acc_end(i32 2)
  call void @__acc_end(i32 1)
  ret void
}

;--- reduction-op.ll
; `reduction(&:s)` on a double (type code 10): clang rejects it in C; hand-written IR here.
@par = private constant [9 x i8] c"parallel\00"
@file = private constant [4 x i8] c"t.c\00"
@red = private constant [10 x i8] c"reduction\00"
@and = private constant [2 x i8] c"&\00"
@s = private constant [2 x i8] c"s\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %sum) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @red, ptr @and, i64 10, ptr %sum, i64 0, i64 1, i64 8, ptr @s)
  call void @__acc_end(i32 1)
  ret void
}

;--- reduction-type.ll
; Type code 0: the _Generic selection's default (a struct, a pointer, long double).
@par = private constant [9 x i8] c"parallel\00"
@file = private constant [4 x i8] c"t.c\00"
@red = private constant [10 x i8] c"reduction\00"
@plus = private constant [2 x i8] c"+\00"
@s = private constant [2 x i8] c"s\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)
define void @g(ptr %sum) {
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @red, ptr @plus, i64 0, ptr %sum, i64 0, i64 1, i64 16, ptr @s)
  call void @__acc_end(i32 1)
  ret void
}

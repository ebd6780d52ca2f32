; The contract reader as a printer pass: what it sees, without changing the module.
; RUN: %opt -load-pass-plugin=%plugin -passes=print-acc-regions %s -disable-output | FileCheck %s

;; #pragma acc data copyin(x[0:n])
;; #pragma acc update self(x[0:n])

@data = private constant [5 x i8] c"data\00"
@upd = private constant [7 x i8] c"update\00"
@file = private constant [4 x i8] c"d.c\00"
@copyin = private constant [7 x i8] c"copyin\00"
@self = private constant [5 x i8] c"self\00"
@xtext = private constant [7 x i8] c"x[0:n]\00"
declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; CHECK-LABEL: d.c:2:9: data (id 1) in h
; CHECK-NEXT:   copyin(x[0:n])
; CHECK-LABEL: d.c:3:9: update (id 2) in h
; CHECK-NEXT:   self(x[0:n])
define void @h(ptr %x, i64 %n) {
  call void @__acc_begin(i32 1, ptr @data, ptr @file, i32 2, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copyin, ptr %x, i64 0, i64 %n, i64 4, ptr @xtext)
  call void @__acc_begin(i32 2, ptr @upd, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @self, ptr %x, i64 0, i64 %n, i64 4, ptr @xtext)
  call void @__acc_end(i32 2)
  call void @__acc_end(i32 1)
  ret void
}

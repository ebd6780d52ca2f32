// The rewriter reads only the files the preprocessor opened (for columns): a #line naming a
// device or a FIFO renames lines but is never opened (reading /dev/zero never ended, a FIFO
// without a writer blocked). Columns then come from the preprocessed text.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir && mkfifo fifo
// RUN: sed 's|NAME|/dev/zero|' %s > zero.c
// RUN: timeout 60 %accc -c zero.c -o zero.o
// RUN: sed "s|NAME|$PWD/fifo|" %s > fifo.c
// RUN: timeout 60 %accc -c fifo.c -o fifo.o
//
// An error there is still reported, at the #line's name, line and column.
// RUN: sed -e 's|NAME|/dev/zero|' -e 's|copy(a\[0:1\])|tile(1, 1)|' -e 's|a\[i\] = 1;|for (int j = 0; j < i; j++) a[j] = 1;|' %s > tile.c
// RUN: not timeout 60 %accc -c tile.c 2>&1 | FileCheck %s
// CHECK: /dev/zero:3:31: error: 'tile' needs a rectangular loop nest

#line 1 "NAME"
void f(int *a) {
#pragma acc parallel loop copy(a[0:1])
  for (int i = 0; i < 1; i++) a[i] = 1;
}

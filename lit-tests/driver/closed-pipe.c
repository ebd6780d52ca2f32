// With stdout/stderr a closed pipe (`accc -c bad.c 2>&1 | head -1`) accc ends with exit
// status 1 after an error and 0 after --help, never by SIGABRT from a panic while printing.
// RUN: python3 %S/Inputs/closed-pipe.py %accc -c %s | FileCheck %s --check-prefix=ERROR
// ERROR: {{^}}1{{$}}
// RUN: python3 %S/Inputs/closed-pipe.py %accc --bogus-flag | FileCheck %s --check-prefix=ERROR
// RUN: python3 %S/Inputs/closed-pipe.py %accc --help | FileCheck %s --check-prefix=OK
// RUN: python3 %S/Inputs/closed-pipe.py %accc --version | FileCheck %s --check-prefix=OK
// OK: {{^}}0{{$}}

void f(int *a) {
#pragma acc parallel loop tile(2, 2)
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < i; j++) a[i] = j;
}

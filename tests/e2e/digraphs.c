/* Digraphs (C99 6.4.6): a region whose body is `<% ... %>` ends at its `%>`, not at the
 * first `;` (which would leave the later statements out of the region and run them on the
 * host before the copy-out overwrote them); `<: :>` in clauses and in the body. */
#define E2E_NAME "digraphs"
#include "e2e.h"

int main(void) <%
  int n = 777;
  int *a = e2e_alloc(sizeof(int) * n);
  int *b = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a<:i:> = i, b[i] = -1;

#pragma acc parallel copy(a<:0:n:>) copyout(b[0:n])
  <%
#pragma acc loop gang vector
    for (int i = 0; i < n; i++) a<:i:> = 3 * a<:i:>;
#pragma acc loop gang vector
    for (int i = 0; i < n; i++) <% b[i] = a[i] + 1; a[i] += 2; %>
  %>

  int s = 5;
#pragma acc serial copy(a[0:n]) copyin(s)
  <% a[0] = s; a[1] = s + 1; a<:n - 1:> = s + 2; %>

  for (int i = 0; i < n; i++) <%
    int want = i == 0 ? 5 : i == 1 ? 6 : i == n - 1 ? 7 : 3 * i + 2;
    CHECK(a[i] == want, "a[%d] = %d, want %d", i, a[i], want);
    CHECK(b[i] == 3 * i + 1, "b[%d] = %d, want %d", i, b[i], 3 * i + 1);
  %>
  free(a), free(b);
  return e2e_finish();
%>

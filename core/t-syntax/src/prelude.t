/* The builtin prelude of Language T: typical signatures, written in T itself.
   Extent names are local to each signature (the spec, §1.3). A program's own
   declaration of the same name shadows the one here. */

% Section 2 and Figure 4: matrix products
proc mat_mat_multiply (in x[R,S], in y[S,T], out z[R,T]) builtin
proc mat_vec_multiply (in m[R,S], in v[S], out result[R]) builtin
proc matvec (out result[S], in m[S,T], in v[T]) builtin

% Element-wise arithmetic and copies (the spec's test builtins, §4)
proc vector_add (out r[N], in a[N], in b[N]) builtin
proc vector_subtract (out r[N], in a[N], in b[N]) builtin
proc matrix_add (out r[R,S], in a[R,S], in b[R,S]) builtin
proc copy (out r[N], in a[N]) builtin
proc copy2 (out r[A,B], in a[A,B]) builtin
proc zeros_like (out r[N], in a[N]) builtin
proc zeros_like2 (out r[R,S], in a[R,S]) builtin
proc fresh (out r[N]) builtin
proc fresh2 (out r[R,S]) builtin
proc chk (in a[N], in b[N]) builtin
proc tr (out r[S,R], in m[R,S]) builtin
proc dot_product (out result, in v1[S], in v2[S]) builtin

% Subscripting (section 1.2's translation of a = b + c * d[i,j])
proc matrix_subscript (out result, in m[R,S], in i, in j) builtin
proc vector_subscript (out result, in v[N], in i) builtin
proc set_vector_element (in out result[S], in index, in value) builtin
proc set_matrix_element (in out result[R,S], in i, in j, in value) builtin
proc extract_matrix_row (out result[S], in m[R][S], in index) builtin
proc extract_matrix_column (out result[R], in m[R][S], in index) builtin
proc clear_vector (in out v[R]) builtin
proc clear_matrix (in out m[R,S]) builtin

% Bounds of index ranges (Figure 2)
proc get_lower_bound_vector (out dim, in v[N]) builtin
proc get_upper_bound_vector (out dim, in v[N]) builtin
proc get_lower_bound_matrix_dimension_1 (out dim, in m[R][S]) builtin
proc get_upper_bound_matrix_dimension_1 (out dim, in m[R][S]) builtin
proc get_lower_bound_matrix_dimension_2 (out dim, in m[R][S]) builtin
proc get_upper_bound_matrix_dimension_2 (out dim, in m[R][S]) builtin

% Scalars
proc scalar_copy (out result, in value) builtin
proc scalar_add (out result, in a, in b) builtin
proc scalar_subtract (out result, in a, in b) builtin
proc scalar_multiply (out result, in a, in b) builtin
proc is_less_than_or_equal_to (out result, in a, in b) builtin
proc is_less_than (out result, in a, in b) builtin
proc is_equal (out result, in a, in b) builtin

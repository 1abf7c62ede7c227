"""The help texts of ``finitedp release`` (its description and epilog)."""

from __future__ import annotations

__all__ = ["RELEASE_DESCRIPTION", "RELEASE_EPILOG"]

RELEASE_DESCRIPTION = """\
Release a differentially private histogram of one column of categorical values,
or (vector-laplace, vector-gaussian) the sum of several numeric columns.

Input: a CSV file (UTF-8, header row, --column NAME), a Parquet file (--column NAME)
or a plain text file with one value per line; - reads standard input. Parquet is
assumed for a name ending in .parquet, CSV for --column or a name ending in .csv
(override with --format). CSV and Parquet files are counted by DuckDB, in-process, so
memory follows the number of distinct values, not of rows (README, "Large data").
Values are taken verbatim (no trimming); blank CSV lines are skipped; in a text file
every line is a value (a final newline ends the last one). n, the number of rows, is
public for the histogram mechanisms: it is printed and stored in the output.

Universe (declared, never inferred from the data):
  int:M      the integers 1..M, written in plain decimal ("7", not "07" or " 7")
  int:A..B   the integers A..B, e.g. int:0..59 (minutes) or int:-10..10
  utf8:L     every UTF-8 string of at most L bytes; a string of k bytes b is numbered
             1 + (256^k - 1)/255 + int(b, big-endian), so |X| = (256^(L+1) - 1)/255
             (SPEC.md, "Universe encodings")
  keys:PATH  a public list of keys, one per line of a UTF-8 file (keys=A,B,C inline);
             the release lists exactly these keys; --other adds one bin, (other), for
             every value outside the list
A value outside the universe is an error naming its line, and nothing is written.

Missing values (a Parquet NULL; an empty CSV field in a numeric column): refused
unless --nulls says what to read in their place: a public VALUE (a key, or a point
of each column's grid), or for a key column "key", the key (null). The map is
row-wise, so the guarantee and n are unchanged. Sums and quantiles also take "drop":
a sum adds nothing for a missing value, a quantile is of the values present (their
count is never released; the guarantee is unchanged) (README, "Missing values").

Numbers are exact: write --epsilon 1/2 (or 0.5, read as exactly 1/2). A histogram
takes any positive rational epsilon up to 64 (with --noise paper, 1/k); delta and
beta must be 1/k for an integer k (BV's N^-1).
"""

RELEASE_EPILOG = """\
mechanisms:
{mechanisms}

defaults: without --mechanism, finitedp tries in order bounded-geometric (only if
  |X| <= {dense} or |X| <= 2n), compact, blanket and pure-sparse, and uses the first
  whose memory and time estimates fit the limits (FINITEDP_MAX_MEMORY, 4 GiB, and
  FINITEDP_MAX_SECONDS, 10 minutes) and that applies (blanket needs n above its
  threshold; blanket and pure-sparse need |X| > 2n); stderr says which was chosen and
  why each earlier one was not. In practice: bounded-geometric for small universes,
  compact up to about 10^5 rows, blanket from about 10^5 to 10^7 rows. All are pure
  (eps, 0)-DP; bounded-geometric and compact answer every value within the per-query
  error with no threshold; blanket and pure-sparse list at most n bins and only
  report counts above a threshold that grows with ln|X| (blanket's is about half of
  pure-sparse's). --beta defaults to 1/10: it is the mechanism's beta0 (pure-sparse
  and blanket: beta) and the failure probability of the accuracy statement. --delta
  is required by stability and refused by the others.

output: one JSON object, on stdout or written atomically to --out (a temporary
  file in the same directory, then renamed): "finitedp" (version), "mechanism",
  "parameters" (n and the exact fractions as strings), "universe" (the spec),
  "universe_size" (a number, or a decimal string above 2^53), "privacy"
  (epsilon, delta), "accuracy" (beta, per_query a, threshold t, simultaneous a,
  source theorem), "release" (the release's own JSON), for partial vectors
  "bins" ([{{"value": label, "count": c}}, ...] in increasing order of the number;
  "value" is null and "bytes" holds hex for a listed bin whose bytes are not
  UTF-8), and "seeded". Read counts back with: finitedp query RELEASE.json VALUE...

randomness: the OS CSPRNG. --seed HEX uses the deterministic SeededSource of
  SPEC.md instead: the output is then NOT private against anyone who knows the seed.

mechanisms over numeric columns (--columns; thesis chapters 4 and 5):
  finitedp release FILE --mechanism vector-gaussian --columns a,b --bounds=-1:1,0:100
    --grid 1/100,1 --rho 1/2 [--p 2]
  finitedp release FILE --mechanism quantile-exponential --columns a --bounds=-1:1
    --grid 1/100 --epsilon 1 [--quantile 1/2]
  (write --bounds=LO:HI when LO is negative). n rows (public), neighbours replace
  one row; each column on its public grid lower + k*step in [lower, upper], values
  read exactly as text (never as floats). Sums split the budget by sensitivity
  (optimal for E||error||_p^p) and state the exact expected error of the noise
  sampled; quantiles give each column eps/d and state each rank error at --beta.
  The output has "estimates": [{{"column", "value"}}]. --universe and --column are
  for histograms only.

exit status: 0 on success, 2 on an input error (nothing is written).
"""

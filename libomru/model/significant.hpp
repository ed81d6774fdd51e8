// significant.hpp - numbers as a job's record shows them: rounded to what
// a measurement means (a rate to 4 significant digits, not the 16 of a
// double), in plain decimal notation, so `sacct -o AdminComment` reads
// "loader=1:2401:0.00308:217786", not "1:2400.678332293605:...".
#ifndef OMRU_MODEL_SIGNIFICANT_HPP
#define OMRU_MODEL_SIGNIFICANT_HPP

#include <string>

namespace omru {

// v rounded to `digits` (1..15) significant digits; a whole part longer
// than that is kept whole (217785.8 -> "217786" at 4).  No exponent, no
// trailing zeros, "0" for zero and for what is not finite, at most 12
// decimals (smaller magnitudes read as 0).  Locale-independent
// (to_chars): ',' separates a record's fields.
std::string significant(double v, int digits);

} // namespace omru

#endif

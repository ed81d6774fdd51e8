// decimal_text.hpp - numbers as people read them in a record, a table or a
// chart: plain decimal notation, no exponent, no trailing zeros,
// locale-independent (to_chars: ',' separates a record's fields and a
// CSV's columns).  A job's record rounds a measurement to what it means
// (a rate to 4 significant digits, not the 16 of a double), so
// `sacct -o AdminComment` reads "loader=1:2401:0.00308:217786", not
// "1:2400.678332293605:...".
#ifndef OMRU_MODEL_DECIMAL_TEXT_HPP
#define OMRU_MODEL_DECIMAL_TEXT_HPP

#include <string>

namespace omru {

// v with `decimals` (0..12) decimals, trailing zeros and a trailing '.'
// dropped, "-0" as "0": 2.50 -> "2.5", 3.00 -> "3".  NaN and infinities
// as to_chars writes them ("nan", "inf").
std::string decimal_text(double v, int decimals);

// v rounded to `digits` (1..15) significant digits; a whole part longer
// than that is kept whole (217785.8 -> "217786" at 4).  "0" for zero and
// for what is not finite, at most 12 decimals (smaller magnitudes read as
// 0).
std::string significant(double v, int digits);

} // namespace omru

#endif

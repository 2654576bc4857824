/**
 * PMT, IPMT and PPMT of the cell-grid evaluator in the compiled model's rounding (library.ts:
 * $xl_pmt, $xl_ipmt, $xl_ppmt), which follows LibreOffice's computation step for step. A schedule
 * whose balance subtracts a PPMT every row carries each payment's last bits down to a final
 * balance of rounding only (emi-calculator-rajkumar: 1.9e-12 after 48 rows), where formulajs's
 * order (43 of 48 IPMTs and all 48 PPMTs a few units of the last place off the model's) left the
 * evaluator and the model 1e-12 apart, past the what-if bound. The values are still checked: against
 * LibreOffice in the tests, against each workbook's stored values cell by cell.
 */

/** The payment per period: (1 + r)^n with the rounding of 1 + r taken back out, then less 1. */
export function loanPayment(
  rate: number,
  periods: number,
  present: number,
  future: number,
  type: number,
): number {
  if (rate === 0) return -(present + future) / periods;
  const u = 1 + rate;
  const m = Math.pow(u, periods) * (1 - (periods * (u - 1 - rate)) / u) - 1;
  return -(present * rate + ((present + future) * rate) / m) / (1 + rate * type);
}

/** The future value by the plain power of 1 + r, as LibreOffice's interest part computes it. */
function plainFutureValue(
  rate: number,
  periods: number,
  payment: number,
  present: number,
  type: number,
): number {
  if (rate === 0) return -(present + payment * periods);
  const f = Math.pow(1 + rate, periods);
  return -(present * f + (payment * (1 + rate * type) * (f - 1)) / rate);
}

/** The interest part of payment `per` (1 … periods; the caller answers #NUM! outside). */
export function interestPart(
  rate: number,
  per: number,
  periods: number,
  present: number,
  future: number,
  type: number,
): number {
  const p = loanPayment(rate, periods, present, future, type);
  const balance =
    per === 1
      ? type === 1
        ? 0
        : -present
      : type === 1
        ? plainFutureValue(rate, per - 2, p, present, 1) - p
        : plainFutureValue(rate, per - 1, p, present, 0);
  return balance * rate;
}

/** The principal part of payment `per`: the payment less its interest part. */
export function principalPart(
  rate: number,
  per: number,
  periods: number,
  present: number,
  future: number,
  type: number,
): number {
  return (
    loanPayment(rate, periods, present, future, type) -
    interestPart(rate, per, periods, present, future, type)
  );
}

/** Check-digit algorithms of the identifier components: Luhn, ABA, MOD-97, EAN-13, VIN. */

/** The Luhn digit that makes `digits + check` valid (IMEI, NPI, card numbers). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  let double = true; // the check digit will sit right of the last digit
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the whole digit string passes the Luhn test. */
export function luhnValid(digits: string): boolean {
  return luhnCheckDigit(digits.slice(0, -1)) === digits.charCodeAt(digits.length - 1) - 48;
}

/** The ninth ABA digit: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function abaCheckDigit(first8: string): number {
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += w[i]! * (first8.charCodeAt(i) - 48);
  return (10 - (sum % 10)) % 10;
}

/** ISO 7064 MOD 97-10 of an alphanumeric string (letters count A=10 ... Z=35). */
export function mod97(text: string): number {
  let rem = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const v = code >= 65 ? String(code - 55) : ch;
    for (const digit of v) rem = (rem * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rem;
}

/** The two IBAN check digits for a country code and a BBAN. */
export function ibanCheckDigits(country: string, bban: string): string {
  return String(98 - mod97(bban + country + '00')).padStart(2, '0');
}

/** The EAN-13 (ISBN-13) check digit over 12 digits: weights 1,3,1,3,... */
export function ean13CheckDigit(first12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (first12.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

const VIN_VALUES: Record<string, number> = {};
'0123456789'.split('').forEach((c, i) => (VIN_VALUES[c] = i));
'ABCDEFGH'.split('').forEach((c, i) => (VIN_VALUES[c] = i + 1));
'JKLMN'.split('').forEach((c, i) => (VIN_VALUES[c] = i + 1));
VIN_VALUES['P'] = 7;
VIN_VALUES['R'] = 9;
'STUVWXYZ'.split('').forEach((c, i) => (VIN_VALUES[c] = i + 2));
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/** The VIN check character (position 9) of a 17-character VIN; `X` stands for 10. */
export function vinCheckCharacter(vin: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (VIN_VALUES[vin[i]!] ?? 0) * VIN_WEIGHTS[i]!;
  const r = sum % 11;
  return r === 10 ? 'X' : String(r);
}

"""Java 17's ``Double.toString``, as the oracle's job writes a float key (Jackson's
``DoubleNode.asText``).

Java up to 18 does not write the shortest digits that read back as the double: its
``FloatingDecimal`` develops digits with a symmetric stopping test and, in E-form, at least two
digits, so real Flink on Java 17 writes ``1e23`` as ``9.999999999999999E22``, ``2e23`` as
``1.9999999999999998E23`` and ``Double.MIN_VALUE`` as ``4.9E-324`` (fixture
``reader_40_number_keys``). The rules below re-express that algorithm:

- a double that is an integer below 2**63 (binary exponent -21..62): its integer digits, with
  ``insignificant`` low digits rounded off above 2**53 (one more per factor 10 of ULP),
  trailing zeros dropped;
- otherwise ``value = B / S * 10**e`` and half an ULP ``M`` as integers, with ``e`` estimated
  by Java's linear approximation of log10 (in doubles); a digit ``q = B // S`` at a time,
  ``B = 10 * (B % S)``, ``M *= 10``, until ``B < M`` (low) or ``B + M > 10 S`` (high; ``>=``
  when the numbers need more than 64 bits); a first digit 0 is dropped (``e`` was one too
  high); in E-form (``e < -3`` or ``e >= 8``) the first digit never stops; a power of two
  halves ``M`` (the gap below it is half as wide); ``M`` never goes below 1 (``B`` and ``S``
  are scaled up instead). In 32- and 64-bit arithmetic ``M`` may overflow: Java then stops;
- the last digit rounds up when only high holds, or both hold and ``2B > 10 S`` (ties: to even);
- layout: plain ``ddd.ddd`` for a decimal exponent 1..7, ``0.00ddd`` for 0..-2, else
  ``d.dddE<n>``; at least one digit after the point.
"""
from __future__ import annotations

import math
import struct
from typing import Callable

__all__ = ["double_to_string"]

_EXP_SHIFT = 52
# ceil(log2(5**i)), Java's estimate of the bits of a power of five (N_5_BITS)
_N5_BITS = [0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61]


def _wrap(x: int, bits: int) -> int:
    """Two's-complement wrap to a Java ``int`` (32) or ``long`` (64)."""
    m = 1 << bits
    x &= m - 1
    return x - m if x >= m >> 1 else x


def _insignificant_for_pow2(p2: int) -> int:
    """How many low decimal digits of an integer double are noise: digits of 2**p2 minus one."""
    return len(str(1 << p2)) - 1 if 1 < p2 < 64 else 0


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    """Java's floor(log10(value)) estimate, computed in doubles as Java computes it."""
    d2 = struct.unpack(">d", struct.pack(">Q", (1023 << _EXP_SHIFT) | (fract_bits & ((1 << _EXP_SHIFT) - 1))))[0]
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _long_digits(value: int, insignificant: int) -> tuple[list[int], int]:
    """Digits and decimal exponent (value = 0.d1d2... * 10**exp) of an integer double."""
    exp = 0
    if insignificant:
        p = 10 ** insignificant
        value, residue = divmod(value, p)
        exp = insignificant
        if residue >= p >> 1:
            value += 1
    text = str(value)
    return [int(c) for c in text.rstrip("0")], exp + len(text)


def _java_divmod(a: int, b: int) -> tuple[int, int]:
    """Java's ``a / b`` and ``a % b`` (truncating; the remainder has the dividend's sign)."""
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b > 0) else -q
    return q, a - q * b


def _develop(b: int, s: int, m: int, e_form: Callable[[int], bool], bits: int | None
             ) -> tuple[list[int], int, bool, bool, int]:
    """The digit loop; ``bits`` 32/64 computes in Java ints/longs (wrapping), ``None`` exactly
    (Java's big-integer path). Returns (digits, exponent adjustment, low, high, sign of
    2B - 10S)."""
    w = (lambda x: _wrap(x, bits)) if bits else (lambda x: x)
    b, s, m = w(b), w(s), w(m)
    tens = w(s * 10)
    digits: list[int] = []

    def step(first: bool) -> tuple[int, bool, bool]:
        nonlocal b, m
        q, r = _java_divmod(b, s)
        b = w(10 * r)
        m = w(m * 10)
        if bits is None:
            return q, b < m, b + m >= tens
        if not first and m <= 0:
            return q, True, True          # Java: m overflowed; it stops here
        return q, b < m, w(b + m) > tens

    q, low, high = step(True)
    adjust = -1 if q == 0 and not high else 0
    if not adjust:
        digits.append(q)
    if e_form(adjust):
        low = high = False
    while not low and not high:
        q, low, high = step(False)
        digits.append(q)
    if bits:
        diff = w(w(b << 1) - tens)
    else:
        diff = (2 * b > tens) - (2 * b < tens) if (low and high) else 0
    return digits, adjust, low, high, diff


def _hard_digits(fract_bits: int, bin_exp: int, n_sig: int) -> tuple[list[int], int]:
    tail = (fract_bits & -fract_bits).bit_length() - 1
    n_fract = _EXP_SHIFT + 1 - tail
    n_tiny = max(0, n_fract - bin_exp - 1)
    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny
    m5, m2 = b5, b2 - n_sig
    fract_bits >>= tail
    b2 -= n_fract - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if n_fract == 1:
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = n_fract + b2 + (_N5_BITS[b5] if b5 < len(_N5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N5_BITS[s5 + 1] if s5 + 1 < len(_N5_BITS) else (s5 + 1) * 3)
    bits = None if b_bits >= 64 or ten_s_bits >= 64 else (32 if b_bits < 32 and ten_s_bits < 32 else 64)
    b = (fract_bits * 5 ** b5) << b2
    s = 5 ** s5 << s2
    m = 5 ** m5 << m2

    def e_form(adjust: int) -> bool:
        e = dec_exp + adjust
        return e < -3 or e >= 8

    digits, adjust, low, high, diff = _develop(b, s, m, e_form, bits)
    exp = dec_exp + adjust + 1
    if high and (not low or diff > 0 or (diff == 0 and digits[-1] % 2 == 1)):
        exp = _round_up(digits, exp)
    return digits, exp


def _round_up(digits: list[int], exp: int) -> int:
    """Add one to the last digit; all nines become 1 followed by zeros (same digit count)."""
    i = len(digits) - 1
    while digits[i] == 9 and i > 0:
        digits[i] = 0
        i -= 1
    if digits[i] == 9:
        digits[0] = 1
        return exp + 1
    digits[i] += 1
    return exp


def _layout(negative: bool, digits: list[int], exp: int) -> str:
    text = "".join(map(str, digits))
    sign = "-" if negative else ""
    if 0 < exp < 8:
        whole = text[:exp].ljust(exp, "0")
        return f"{sign}{whole}.{text[exp:] or '0'}"
    if -3 < exp <= 0:
        return f"{sign}0.{'0' * -exp}{text}"
    return f"{sign}{text[0]}.{text[1:] or '0'}E{exp - 1}"


def double_to_string(d: float) -> str:
    """``Double.toString(d)`` as Java 17 writes it (see the module docstring)."""
    bits = struct.unpack(">Q", struct.pack(">d", d))[0]
    negative = bool(bits >> 63)
    fract = bits & ((1 << _EXP_SHIFT) - 1)
    bin_exp = (bits >> _EXP_SHIFT) & 0x7FF
    if bin_exp == 0x7FF:
        return "NaN" if fract else ("-Infinity" if negative else "Infinity")
    if bin_exp == 0:
        if fract == 0:
            return "-0.0" if negative else "0.0"
        n_sig = fract.bit_length()          # a subnormal: fewer significant bits
        shift = _EXP_SHIFT + 1 - n_sig
        fract <<= shift
        bin_exp = 1 - shift
    else:
        fract |= 1 << _EXP_SHIFT
        n_sig = _EXP_SHIFT + 1
    bin_exp -= 1023
    tail = (fract & -fract).bit_length() - 1
    n_fract = _EXP_SHIFT + 1 - tail
    if -21 <= bin_exp <= 62 and n_fract - bin_exp - 1 <= 0:
        insignificant = _insignificant_for_pow2(bin_exp - n_sig - 1) if bin_exp > n_sig else 0
        value = fract << (bin_exp - _EXP_SHIFT) if bin_exp >= _EXP_SHIFT else fract >> (_EXP_SHIFT - bin_exp)
        digits, exp = _long_digits(value, insignificant)
    else:
        digits, exp = _hard_digits(fract, bin_exp, n_sig)
    return _layout(negative, digits, exp)

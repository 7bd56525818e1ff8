//! The tokenizer: whitespace-separated tokens with their line numbers, and the error
//! type every parsing step returns (a message and the line it is about).

/// What is wrong, and on which line (1-based).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ParseError {
    pub(super) line: usize,
    pub(super) message: String,
}

pub(super) fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// A token for an error message: at most 40 characters.
pub(super) fn shown(token: &str) -> String {
    let mut s: String = token.chars().take(40).collect();
    if s.len() < token.len() {
        s.push_str("...");
    }
    s
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub(super) text: &'a str,
    pub(super) line: usize,
}

/// Splits text at ASCII whitespace (spaces, tabs, CR, LF, form feeds), counting lines.
pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    /// Line of `pos`.
    line: usize,
    /// Line of the last token returned (for errors at the end of the file).
    pub(super) last_line: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            line: 1,
            last_line: 1,
        }
    }

    pub(super) fn next(&mut self) -> Option<Token<'a>> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        let start = self.pos;
        while bytes
            .get(self.pos)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
        if start == self.pos {
            return None;
        }
        self.last_line = self.line;
        // Both ends sit at an ASCII byte or the end: character boundaries.
        self.text.get(start..self.pos).map(|text| Token {
            text,
            line: self.line,
        })
    }

    /// The rest of the current line, trimmed; the lexer moves to its end.
    pub(super) fn rest_of_line(&mut self) -> &'a str {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        while bytes.get(self.pos).is_some_and(|&b| b != b'\n') {
            self.pos += 1;
        }
        self.text.get(start..self.pos).unwrap_or("").trim()
    }

    /// Bytes not read yet.
    pub(super) fn remaining(&self) -> usize {
        self.text.len().saturating_sub(self.pos)
    }
}

/// A finite number (`.5`, `1e-06`, `-0.00000`...).
pub(super) fn number(t: Token<'_>, what: &str) -> Result<f64, ParseError> {
    match t.text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(err(
            t.line,
            format!("{what} '{}' is not a finite number", shown(t.text)),
        )),
        Err(_) => Err(err(
            t.line,
            format!("{what} '{}' is not a number", shown(t.text)),
        )),
    }
}

/// Powers of ten an `f32` holds exactly (10^10 is the last one).
const EXACT_POWERS_OF_TEN: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/// A motion value: `text` read as `f32`, bit for bit what `str::parse::<f32>` gives.
///
/// Motion data is millions of plain decimals (`-12.345600`, `0.000005`): those are read
/// here without the general parser. With the digits as an integer `m` (trailing zeros
/// dropped) and `e` digits after the point, `m <= 2^24` and `e <= 10` make both `m` and
/// `10^e` exact in `f32`, and one IEEE division rounds their quotient correctly, so the
/// result equals the correctly rounded parse (Clinger's fast path). Anything else (an
/// exponent, more digits, `inf`, junk) goes to `str::parse`.
pub(super) fn motion_value(text: &str) -> Result<f32, std::num::ParseFloatError> {
    match plain_decimal(text.as_bytes()) {
        Some(v) => Ok(v),
        None => text.parse::<f32>(),
    }
}

/// The fast path of [`motion_value`]: `None` when `bytes` is not `[+-]digits[.digits]`
/// (at least one digit) or does not fit it.
fn plain_decimal(bytes: &[u8]) -> Option<f32> {
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    let mut mantissa: u64 = 0;
    // Digits after the point kept in `mantissa` (trailing zeros are held back in
    // `zeros` and only multiplied in when a non-zero digit follows).
    let (mut scale, mut zeros, mut seen_digit, mut after_point) = (0u32, 0u32, false, false);
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                seen_digit = true;
                let d = u64::from(b - b'0');
                if d == 0 && after_point {
                    zeros += 1;
                    continue;
                }
                for _ in 0..=zeros {
                    mantissa = mantissa.checked_mul(10)?;
                }
                mantissa += d;
                if after_point {
                    scale += zeros + 1;
                }
                zeros = 0;
                if mantissa > 1 << 24 {
                    return None;
                }
            }
            b'.' if !after_point => after_point = true,
            _ => return None,
        }
    }
    if !seen_digit {
        return None;
    }
    let power = *EXACT_POWERS_OF_TEN.get(scale as usize)?;
    // `mantissa <= 2^24`: exact in f32.
    let magnitude = mantissa as f32 / power;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::motion_value;

    /// Every value equals the standard parse bit for bit, on the forms motion data uses
    /// and on the edges of the fast path (2^24, 10^10, many zeros, signs of zero).
    #[test]
    fn motion_values_equal_the_standard_parse() {
        let cases = [
            "0",
            "-0",
            "0.000000",
            "-0.000000",
            "+1.5",
            "483.175000",
            "-90.712600",
            "0.000005",
            "-0.000001",
            "16777216",
            "16777217",
            "1677721.6",
            "0.16777217",
            "1.0000000001",
            "123456789",
            "0.1",
            "0.3",
            "9999999",
            "99999999",
            "1e3",
            "-2.5E-3",
            ".5",
            "5.",
            "0000012.5000",
            "3.4028235e38",
            "1e-45",
            "0.00000000001",
            "12.3456789012",
            "7.0000000000",
            "-16777215.0",
            "0.0000000016777215",
        ];
        for s in cases {
            let want = s.parse::<f32>().unwrap();
            let got = motion_value(s).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "'{s}': {got} vs {want}");
        }
        for bad in ["", "-", ".", "+.", "1.2.3", "--1", "1-", "abc", "1,5"] {
            assert!(motion_value(bad).is_err(), "'{bad}' parsed");
        }
    }

    /// 300,000 decimals of every length the fast path takes and just past it (a fixed
    /// pseudo-random sequence), each equal to the standard parse bit for bit.
    #[test]
    fn random_decimals_equal_the_standard_parse() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..300_000 {
            let int_digits = next(9) as usize;
            let frac_digits = next(12) as usize;
            let mut s = String::new();
            if next(2) == 0 {
                s.push('-');
            }
            for _ in 0..int_digits.max(1) {
                s.push(char::from(b'0' + next(10) as u8));
            }
            if frac_digits > 0 {
                s.push('.');
                for _ in 0..frac_digits {
                    s.push(char::from(b'0' + next(10) as u8));
                }
            }
            let want = s.parse::<f32>().unwrap();
            let got = motion_value(&s).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "'{s}': {got} vs {want}");
        }
    }
}

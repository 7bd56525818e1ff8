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

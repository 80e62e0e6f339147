//! A parser for the Python list literals RAGAS writes into CSV cells, e.g. `['a', "b's"]`.

/// Parses a list of quoted strings as Python's `repr` writes it: single or double quotes,
/// backslash escapes (`\\`, `\'`, `\"`, `\n`, `\r`, `\t`, `\xNN`, `\uNNNN`), an optional trailing
/// comma. Anything else (numbers, nested lists, `None`) is an error.
pub(crate) fn parse_py_list(s: &str) -> Result<Vec<String>, String> {
    let mut p = Parser { chars: s.char_indices().peekable() };
    p.ws();
    p.expect('[')?;
    let mut out = Vec::new();
    loop {
        p.ws();
        match p.peek() {
            Some(']') => {
                p.bump();
                break;
            }
            Some('\'') | Some('"') => {
                out.push(p.string()?);
                p.ws();
                match p.bump() {
                    Some(',') => continue,
                    Some(']') => break,
                    _ => return Err("expected `,` or `]` after a string".into()),
                }
            }
            _ => return Err("expected a quoted string".into()),
        }
    }
    p.ws();
    if p.peek().is_some() {
        return Err("unexpected text after `]`".into());
    }
    Ok(out)
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
}

impl Parser<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn bump(&mut self) -> Option<char> {
        self.chars.next().map(|(_, c)| c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn expect(&mut self, want: char) -> Result<(), String> {
        match self.bump() {
            Some(c) if c == want => Ok(()),
            _ => Err(format!("expected `{want}`")),
        }
    }

    fn hex(&mut self, digits: usize) -> Result<char, String> {
        let mut v = 0u32;
        for _ in 0..digits {
            let d = self.bump().and_then(|c| c.to_digit(16)).ok_or("invalid hex escape")?;
            v = v * 16 + d;
        }
        char::from_u32(v).ok_or_else(|| "invalid escaped character".to_string())
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.bump().ok_or("expected a quote")?;
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err("unterminated string".into()),
                Some(c) if c == quote => return Ok(out),
                Some('\\') => match self.bump() {
                    None => return Err("unterminated string".into()),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some('t') => out.push('\t'),
                    Some('x') => out.push(self.hex(2)?),
                    Some('u') => out.push(self.hex(4)?),
                    Some(c @ ('\\' | '\'' | '"')) => out.push(c),
                    // Python keeps unknown escapes as written.
                    Some(c) => {
                        out.push('\\');
                        out.push(c);
                    }
                },
                Some(c) => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_py_list;

    #[test]
    fn parses_python_repr_lists() {
        assert_eq!(parse_py_list("[]").unwrap(), Vec::<String>::new());
        assert_eq!(
            parse_py_list(r#"['Paris is the capital.', "It's big", 'a \'q\' \\ b\nc', ]"#).unwrap(),
            vec!["Paris is the capital.", "It's big", "a 'q' \\ b\nc"]
        );
        assert_eq!(parse_py_list(r"['caf\xe9']").unwrap(), vec!["café"]);
    }

    #[test]
    fn rejects_other_literals() {
        assert!(parse_py_list("['a', 1]").is_err());
        assert!(parse_py_list("['a'").is_err());
        assert!(parse_py_list("['a'] x").is_err());
        assert!(parse_py_list("'a'").is_err());
    }
}

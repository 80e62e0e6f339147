//! Where a result came from: the ragjudge version and the exact command line that wrote it,
//! kept in every report file so a report can say how to reproduce each number.

use serde::{Deserialize, Serialize};

/// The version and command line of the process that wrote a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// `ragjudge` version (the workspace version).
    pub ragjudge: String,
    /// The command line, one argument per item, the program name first.
    pub command: Vec<String>,
}

impl Provenance {
    /// This process: the workspace version and `std::env::args`.
    pub fn of_this_process() -> Self {
        Provenance { ragjudge: env!("CARGO_PKG_VERSION").to_string(), command: std::env::args().collect() }
    }

    /// The command line as one shell line, arguments with spaces or quotes single-quoted.
    pub fn command_line(&self) -> String {
        self.command.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")
    }
}

/// `arg` as a POSIX shell word.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_quotes_what_the_shell_would_split() {
        let p = Provenance {
            ragjudge: "0.1.0".into(),
            command: vec!["ragjudge".into(), "--ids".into(), "q1,q2".into(), "it's here".into(), String::new()],
        };
        assert_eq!(p.command_line(), r"ragjudge --ids q1,q2 'it'\''s here' ''");
    }
}

//! Guards on the paths a command is given: an output that is one of its inputs, and an input
//! given twice.

use crate::error::ArtifactError;
use std::path::{Path, PathBuf};

/// Refuses `output` when it is one of `inputs`: the same path, or another path to the same file
/// (a hard or symbolic link, `./x` for `x`). An output that does not exist yet is no input.
pub fn check_not_input<P: AsRef<Path>>(output: &Path, inputs: &[P]) -> Result<(), ArtifactError> {
    for input in inputs {
        let input = input.as_ref();
        let same = input == output || same_file::is_same_file(input, output).unwrap_or(false);
        if same {
            return Err(ArtifactError::OutputIsInput { output: output.to_path_buf(), input: input.to_path_buf() });
        }
    }
    Ok(())
}

/// The inputs given more than once (by path or by inode), each as (first path, repeated path),
/// for a warning: their records would otherwise be counted twice without a word.
pub fn repeated_inputs<P: AsRef<Path>>(inputs: &[P]) -> Vec<(PathBuf, PathBuf)> {
    let mut repeated = Vec::new();
    for (i, later) in inputs.iter().enumerate() {
        let later = later.as_ref();
        if let Some(first) = inputs[..i]
            .iter()
            .map(AsRef::as_ref)
            .find(|first: &&Path| *first == later || same_file::is_same_file(first, later).unwrap_or(false))
        {
            repeated.push((first.to_path_buf(), later.to_path_buf()));
        }
    }
    repeated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_equal_to_an_input_is_refused_by_path_and_by_inode() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("runs.jsonl");
        std::fs::write(&input, "{}\n").unwrap();
        let err = check_not_input(&input, std::slice::from_ref(&input)).unwrap_err();
        assert!(err.to_string().contains("would destroy the input"), "{err}");
        let dotted = dir.path().join(".").join("runs.jsonl");
        assert!(check_not_input(&dotted, std::slice::from_ref(&input)).is_err());
        let linked = dir.path().join("link.jsonl");
        std::fs::hard_link(&input, &linked).unwrap();
        assert!(check_not_input(&linked, std::slice::from_ref(&input)).is_err());
        assert!(check_not_input(&dir.path().join("new.csv"), &[input]).is_ok());
    }

    #[test]
    fn repeated_inputs_are_found_by_path_and_by_inode() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        std::fs::write(&a, "").unwrap();
        std::fs::write(&b, "").unwrap();
        let a2 = dir.path().join(".").join("a.jsonl");
        let found = repeated_inputs(&[a.clone(), b.clone(), a2.clone()]);
        assert_eq!(found, vec![(a.clone(), a2)]);
        assert!(repeated_inputs(&[a, b]).is_empty());
    }
}

//! One entry point for PII in a text: pattern detectors plus (optionally) NER findings, merged.

use crate::pii::detectors::PatternDetectors;
use crate::pii::{merge, ner, Finding};
use ragjudge_models::{ModelError, TokenClassifier};

/// Finds PII with the pattern detectors and, given a model, an NER token classifier.
#[derive(Debug, Clone)]
pub struct PiiScanner {
    /// The pattern detectors.
    pub patterns: PatternDetectors,
    /// Least mean token probability of an NER entity.
    pub ner_threshold: f32,
    /// Longest text window given to the NER model at once, in bytes.
    pub ner_chunk_bytes: usize,
}

impl Default for PiiScanner {
    fn default() -> Self {
        Self { patterns: PatternDetectors::default(), ner_threshold: 0.5, ner_chunk_bytes: 1000 }
    }
}

impl PiiScanner {
    /// Pattern findings of `text` merged with the given NER findings (one finding per span).
    pub fn scan(&self, text: &str, ner_findings: Vec<Finding>) -> Vec<Finding> {
        let mut all = self.patterns.find_all(text);
        all.extend(ner_findings);
        merge::dedupe(all)
    }

    /// NER findings of every text, with one model call over all their windows.
    pub fn ner_findings(&self, model: &dyn TokenClassifier, texts: &[&str]) -> Result<Vec<Vec<Finding>>, ModelError> {
        let mut windows: Vec<(usize, usize, &str)> = Vec::new(); // (text index, offset, window)
        for (i, t) in texts.iter().enumerate() {
            for (off, w) in ner::chunks(t, self.ner_chunk_bytes) {
                if !w.trim().is_empty() {
                    windows.push((i, off, w));
                }
            }
        }
        let inputs: Vec<&str> = windows.iter().map(|w| w.2).collect();
        let preds = if inputs.is_empty() { Vec::new() } else { model.classify(&inputs)? };
        if preds.len() != inputs.len() {
            return Err(ModelError::Inference(
                format!("token classifier returned {} results for {} texts", preds.len(), inputs.len()).into(),
            ));
        }
        let mut out = vec![Vec::new(); texts.len()];
        for ((i, off, w), p) in windows.iter().zip(&preds) {
            for mut f in ner::findings(w, p, self.ner_threshold) {
                f.start += off;
                f.end += off;
                out[*i].push(f);
            }
        }
        Ok(out)
    }
}

//! Fake models for the tests: fixed vectors, logits and label probabilities for known sentences.
#![allow(dead_code)]

use ragjudge_models::{
    CrossEncoder, Embedder, GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Maps known sentences to fixed vectors; counts calls and texts embedded.
pub struct FakeEmbedder {
    pub vectors: HashMap<String, Vec<f32>>,
    pub calls: AtomicUsize,
    pub texts: AtomicUsize,
}

impl FakeEmbedder {
    pub fn new(pairs: &[(&str, [f32; 3])]) -> Self {
        let vectors = pairs.iter().map(|(t, v)| (t.to_string(), v.to_vec())).collect();
        Self { vectors, calls: AtomicUsize::new(0), texts: AtomicUsize::new(0) }
    }
}

impl Embedder for FakeEmbedder {
    fn identity(&self) -> String {
        "fake".into()
    }
    fn dim(&self) -> usize {
        3
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        texts
            .iter()
            .map(|t| {
                self.vectors
                    .get(*t)
                    .cloned()
                    .ok_or_else(|| ModelError::Inference(format!("unknown sentence {t:?}").into()))
            })
            .collect()
    }
}

/// An NLI cross-encoder with labels `[contradiction, entailment, neutral]` and fixed logits per
/// (premise, hypothesis); records the pairs it saw.
pub struct FakeNli {
    pub logits: HashMap<(String, String), Vec<f32>>,
    pub seen: Mutex<Vec<(String, String)>>,
    pub calls: AtomicUsize,
}

impl FakeNli {
    pub fn new(entries: &[(&str, &str, [f32; 3])]) -> Self {
        let logits = entries.iter().map(|(p, h, l)| ((p.to_string(), h.to_string()), l.to_vec())).collect();
        Self { logits, seen: Mutex::new(Vec::new()), calls: AtomicUsize::new(0) }
    }
}

impl CrossEncoder for FakeNli {
    fn identity(&self) -> String {
        "fake-nli".into()
    }
    fn labels(&self) -> Vec<String> {
        vec!["CONTRADICTION".into(), "ENTAILMENT".into(), "NEUTRAL".into()]
    }
    fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut seen = self.seen.lock().unwrap();
        pairs
            .iter()
            .map(|(p, h)| {
                seen.push((p.to_string(), h.to_string()));
                self.logits
                    .get(&(p.to_string(), h.to_string()))
                    .cloned()
                    .ok_or_else(|| ModelError::Inference(format!("unknown pair ({p:?}, {h:?})").into()))
            })
            .collect()
    }
}

/// A judge whose label probabilities depend on the statement in the prompt.
pub struct FakeJudge {
    /// (statement, [p_yes, p_no]).
    pub answers: Vec<(String, [f64; 2])>,
    pub prompts: Mutex<Vec<(Prompt, Vec<String>)>>,
}

impl FakeJudge {
    pub fn new(answers: &[(&str, [f64; 2])]) -> Self {
        Self { answers: answers.iter().map(|(s, p)| (s.to_string(), *p)).collect(), prompts: Mutex::new(Vec::new()) }
    }
}

impl Judge for FakeJudge {
    fn identity(&self) -> String {
        "fake-judge".into()
    }
    fn generate(&self, _prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        Err(ModelError::Inference("generate is not used".into()))
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.prompts.lock().unwrap().push((prompt.clone(), labels.to_vec()));
        let user = &prompt.messages.last().unwrap().content;
        let (_, probs) = self
            .answers
            .iter()
            .find(|(s, _)| user.contains(&format!("Statement: {s}\n")))
            .ok_or_else(|| ModelError::Inference("unknown statement".into()))?;
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs: probs.to_vec(),
            logits: probs.iter().map(|p| p.ln()).collect(),
            label_mass: None,
            source: ProbSource::Logits,
        })
    }
    fn usage(&self) -> Usage {
        Usage::default()
    }
}

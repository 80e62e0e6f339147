//! Fake models for the unit tests of this module.

use std::sync::Mutex;

use ragjudge_core::{Context, Record};
use ragjudge_models::{
    CrossEncoder, GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, TokenEmbedder,
    TokenEmbedding,
};

/// A record with these passages and this answer.
pub fn record(passages: &[&str], answer: &str) -> Record {
    Record {
        id: "q1".into(),
        system: "S".into(),
        query: "What?".into(),
        contexts: passages.iter().map(|p| Context { text: p.to_string(), ..Default::default() }).collect(),
        answer: answer.into(),
        ..Default::default()
    }
}

fn first_word(s: &str) -> String {
    s.split_whitespace().next().unwrap_or("").trim_matches(|c: char| !c.is_alphanumeric()).to_string()
}

/// Labels `[contradiction, entailment]`; logits `[0, ln 3]` (P(entailment) = 3/4) when the
/// hypothesis's first word occurs in the premise, else `[ln 3, 0]` (P = 1/4).
#[derive(Default)]
pub struct FakeCrossEncoder {
    seen: Mutex<Vec<(String, String)>>,
}

impl FakeCrossEncoder {
    /// Every (premise, hypothesis) pair scored so far.
    pub fn seen(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

impl CrossEncoder for FakeCrossEncoder {
    fn identity(&self) -> String {
        "fake-nli".into()
    }
    fn labels(&self) -> Vec<String> {
        vec!["contradiction".into(), "entailment".into()]
    }
    fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError> {
        let l3 = 3f32.ln();
        let mut seen = self.seen.lock().unwrap();
        Ok(pairs
            .iter()
            .map(|(p, h)| {
                seen.push((p.to_string(), h.to_string()));
                let w = first_word(h);
                if !w.is_empty() && p.contains(&w) {
                    vec![0.0, l3]
                } else {
                    vec![l3, 0.0]
                }
            })
            .collect())
    }
}

/// Reads the text between `start` and the next blank line (or the end).
pub fn field<'a>(prompt: &'a str, start: &str) -> &'a str {
    let rest = prompt.split_once(start).map(|(_, r)| r).unwrap_or("");
    rest.split("\n\n").next().unwrap_or("")
}

type EntailRule = Box<dyn Fn(&str, &str) -> f64 + Send + Sync>;

/// A scripted judge. Entailment prompts: `P(Yes) = entail(premise, claim)` (default 0.9 when the
/// claim mentions "Paris", else 0.2). No-answer prompts: `P(yes) = answered`. Generation
/// (claim extraction): the claims listed for the first text that occurs in the prompt.
pub struct FakeJudge {
    /// Entailment rule.
    pub entail: EntailRule,
    /// P(yes) for no-answer prompts.
    pub answered: f64,
    /// Claims per source text.
    pub claims: Vec<(String, Vec<String>)>,
    /// User messages of `label_probs` calls.
    pub prompts: Mutex<Vec<String>>,
    /// Prompts of `generate` calls.
    pub generated: Mutex<Vec<Prompt>>,
}

impl Default for FakeJudge {
    fn default() -> Self {
        Self {
            entail: Box::new(|_, s| if s.contains("Paris") { 0.9 } else { 0.2 }),
            answered: 0.8,
            claims: Vec::new(),
            prompts: Mutex::new(Vec::new()),
            generated: Mutex::new(Vec::new()),
        }
    }
}

impl FakeJudge {
    /// User messages of every `label_probs` call so far.
    pub fn label_prompts(&self) -> Vec<String> {
        self.prompts.lock().unwrap().clone()
    }
    /// Prompts of every `generate` call so far.
    pub fn generated(&self) -> Vec<Prompt> {
        self.generated.lock().unwrap().clone()
    }
}

impl Judge for FakeJudge {
    fn identity(&self) -> String {
        "fake-judge".into()
    }
    fn generate(&self, prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        self.generated.lock().unwrap().push(prompt.clone());
        let user = &prompt.messages.last().unwrap().content;
        let claims = self.claims.iter().find(|(t, _)| user.contains(t.as_str())).map(|(_, c)| c.clone());
        let text = match claims {
            Some(c) => serde_json::json!({ "claims": c }).to_string(),
            None => "no JSON here".to_string(),
        };
        Ok(Generation { text, ..Default::default() })
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        let user = prompt.messages.last().unwrap().content.clone();
        self.prompts.lock().unwrap().push(user.clone());
        let p = if user.contains("Your Response:") {
            self.answered
        } else {
            (self.entail)(field(&user, "Premise:\n"), field(&user, "Claim:\n"))
        };
        Ok(yes_no(labels, p))
    }
    fn usage(&self) -> ragjudge_models::Usage {
        ragjudge_models::Usage::default()
    }
}

/// Label probabilities `[p, 1 - p]` over two labels (yes first), as read from logits.
pub fn yes_no(labels: &[String], p: f64) -> LabelProbs {
    LabelProbs {
        labels: labels.to_vec(),
        probs: vec![p, 1.0 - p],
        logits: vec![p.ln(), (1.0 - p).ln()],
        label_mass: Some(1.0),
        source: ProbSource::Logits,
    }
}

/// A judge answering `P(Yes) = yes(last user message)` to every label question.
pub struct YesJudge(pub fn(&str) -> f64);

impl Judge for YesJudge {
    fn identity(&self) -> String {
        "yes-judge".into()
    }
    fn generate(&self, _prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        Err(ModelError::Protocol("this judge only reads label probabilities".into()))
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        let user = prompt.messages.iter().rev().find(|m| m.role == "user").map_or("", |m| m.content.as_str());
        Ok(yes_no(labels, (self.0)(user)))
    }
    fn usage(&self) -> ragjudge_models::Usage {
        ragjudge_models::Usage::default()
    }
}

/// Token embeddings scripted per text: each whitespace word becomes one token whose vector is
/// looked up in `vectors` (unknown words get `[0, ..., 0, 1]`), between `[CLS]` and `[SEP]`
/// tokens with vector `cls`.
pub struct FakeTokenEmbedder {
    /// Word -> vector.
    pub vectors: Vec<(String, Vec<f32>)>,
    /// Vector of the special tokens.
    pub cls: Vec<f32>,
}

impl TokenEmbedder for FakeTokenEmbedder {
    fn identity(&self) -> String {
        "fake-tokens".into()
    }
    fn dim(&self) -> usize {
        self.cls.len()
    }
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError> {
        let d = self.cls.len();
        let mut unknown = vec![0.0; d];
        unknown[d - 1] = 1.0;
        Ok(texts
            .iter()
            .map(|t| {
                let mut e = TokenEmbedding {
                    tokens: vec!["[CLS]".into()],
                    ids: vec![101],
                    special: vec![true],
                    vectors: vec![self.cls.clone()],
                };
                for w in t.split_whitespace() {
                    let v = self.vectors.iter().find(|(k, _)| k == w).map(|(_, v)| v.clone());
                    e.tokens.push(w.to_string());
                    e.ids.push(w.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))));
                    e.special.push(false);
                    e.vectors.push(v.unwrap_or_else(|| unknown.clone()));
                }
                e.tokens.push("[SEP]".into());
                e.ids.push(102);
                e.special.push(true);
                e.vectors.push(self.cls.clone());
                e
            })
            .collect())
    }
}

/// A judge that fails: with `down` every call fails with a time-out, else every call answers
/// with no label probabilities at all.
pub struct BrokenJudge {
    /// Calls fail instead of answering.
    pub down: bool,
}

impl Judge for BrokenJudge {
    fn identity(&self) -> String {
        "broken-judge".into()
    }
    fn generate(&self, _prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        Err(ModelError::Timeout(30))
    }
    fn label_probs(&self, _prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        if self.down {
            return Err(ModelError::Timeout(30));
        }
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs: Vec::new(),
            logits: Vec::new(),
            label_mass: None,
            source: ProbSource::Logits,
        })
    }
    fn usage(&self) -> ragjudge_models::Usage {
        ragjudge_models::Usage::default()
    }
}

//! The traits every model backend implements, and the request / response types of judges.

use crate::error::ModelError;
use serde::{Deserialize, Serialize};

/// Sentence embeddings (e.g. MiniLM: mean pooling over the attention mask, then L2 normalisation).
pub trait Embedder: Send + Sync {
    /// Model identity for caches: name plus a hash of the weights.
    fn identity(&self) -> String;
    /// Embedding dimension.
    fn dim(&self) -> usize;
    /// One L2-normalised vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError>;
    /// Like [`Embedder::embed`], for texts searched for rather than searching: the passages of an
    /// asymmetric search. A model trained with a passage prompt (E5's `passage: `, Wang et al.
    /// 2024, section 3) puts it before each text; any other model embeds as [`Embedder::embed`].
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.embed(texts)
    }
}

/// A sequence-pair classifier (e.g. an NLI cross-encoder).
pub trait CrossEncoder: Send + Sync {
    /// Model identity for caches.
    fn identity(&self) -> String;
    /// Output labels in logit order (from `id2label` of the model config).
    fn labels(&self) -> Vec<String>;
    /// Raw logits per (first, second) text pair.
    fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError>;
}

/// One token's label from a [`TokenClassifier`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenPrediction {
    /// The token as in the tokenizer's vocabulary.
    pub token: String,
    /// Byte offset of the token's start in the input text.
    pub start: usize,
    /// Byte offset just past the token's end.
    pub end: usize,
    /// Predicted label (e.g. `B-EMAIL`, `O`).
    pub label: String,
    /// Softmax probability of that label.
    pub score: f32,
}

/// A token classifier (e.g. PII named-entity recognition).
pub trait TokenClassifier: Send + Sync {
    /// Model identity for caches.
    fn identity(&self) -> String;
    /// Labels in logit order.
    fn labels(&self) -> Vec<String>;
    /// Per text, one prediction per non-special token.
    fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<TokenPrediction>>, ModelError>;
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Message text.
    pub content: String,
}

impl Message {
    /// A message with `role` and `content`.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Self { role: role.to_string(), content: content.into() }
    }
}

/// A chat prompt. Backends apply the model's chat template to `messages` and open an assistant
/// turn; `assistant_prefix`, when set, is the beginning of that turn (e.g. the judge's own
/// reasoning followed by "Verdict:"), so that the next token is the one scored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Prompt {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Text the assistant turn starts with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_prefix: Option<String>,
}

impl Prompt {
    /// A prompt of one system message and one user message.
    pub fn chat(system: &str, user: impl Into<String>) -> Self {
        let mut messages = Vec::new();
        if !system.is_empty() {
            messages.push(Message::new("system", system));
        }
        messages.push(Message::new("user", user));
        Self { messages, assistant_prefix: None }
    }
}

/// Generation parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenParams {
    /// Most tokens to generate.
    pub max_tokens: u32,
    /// 0 = greedy.
    pub temperature: f32,
    /// Nucleus sampling mass (1 = off).
    pub top_p: f32,
    /// Sampling seed.
    pub seed: u64,
    /// Generation stops before any of these strings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// A JSON schema the output must follow, where the backend supports structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<serde_json::Value>,
    /// A GBNF grammar (llama.cpp's format, start rule `root`) the output must follow, for local
    /// backends, which constrain sampling with it; HTTP backends use `json_schema` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
}

impl Default for GenParams {
    fn default() -> Self {
        Self {
            max_tokens: 512,
            temperature: 0.0,
            top_p: 1.0,
            seed: 42,
            stop: Vec::new(),
            json_schema: None,
            grammar: None,
        }
    }
}

/// Generated text and its token counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Generation {
    /// The generated text (stop sequence excluded).
    pub text: String,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Generated tokens.
    pub completion_tokens: u64,
    /// Why generation ended: `stop`, `length`, ...
    pub finish_reason: String,
}

/// Where label probabilities came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbSource {
    /// Next-token logits of the full vocabulary (local models).
    Logits,
    /// `top_logprobs` of an HTTP backend; labels absent from them get no mass.
    TopLogprobs,
    /// No probabilities available: the generated label got probability 1.
    HardLabel,
}

/// Probabilities of single-token labels for the next token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelProbs {
    /// The labels, in request order.
    pub labels: Vec<String>,
    /// Softmax over the labels' logits only; sums to 1.
    pub probs: Vec<f64>,
    /// The labels' logits (or log-probabilities for HTTP backends).
    pub logits: Vec<f64>,
    /// Probability mass the labels hold in the full next-token distribution, when known.
    pub label_mass: Option<f64>,
    /// How the numbers were obtained.
    pub source: ProbSource,
}

/// Token and call counts of a judge since it was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Usage {
    /// Model calls made (cache hits excluded).
    pub calls: u64,
    /// Prompt tokens sent.
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
}

/// A generative judge model.
pub trait Judge: Send + Sync {
    /// Backend and model identity for the call cache: e.g. `llama:<weights sha256>` or
    /// `openai:<base url>:<model>`.
    fn identity(&self) -> String;
    /// Generates an answer to `prompt`.
    fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError>;
    /// Probabilities of `labels` as the next token after `prompt`. A label counts in its bare
    /// and its space-led form (`A`, ` A`), each that is a single token; its probability is
    /// their summed mass, renormalised over the labels.
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError>;
    /// Many generations; backends with concurrency override this. Results keep request order.
    fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
        requests.iter().map(|(p, g)| self.generate(p, g)).collect()
    }
    /// Many label-probability calls; results keep request order.
    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        requests.iter().map(|(p, l)| self.label_probs(p, l)).collect()
    }
    /// Calls and tokens so far.
    fn usage(&self) -> Usage;
}

/// Forwards a model trait through a smart pointer, so `Box<dyn T>` and `Arc<dyn T>` are models too.
macro_rules! forward_through {
    ($($ptr:ident)::+) => {
        impl<T: TokenEmbedder + ?Sized> TokenEmbedder for std::$($ptr)::+<T> {
            fn identity(&self) -> String {
                (**self).identity()
            }
            fn dim(&self) -> usize {
                (**self).dim()
            }
            fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError> {
                (**self).embed_tokens(texts)
            }
        }

        impl<T: Embedder + ?Sized> Embedder for std::$($ptr)::+<T> {
            fn identity(&self) -> String {
                (**self).identity()
            }
            fn dim(&self) -> usize {
                (**self).dim()
            }
            fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
                (**self).embed(texts)
            }
            fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
                (**self).embed_passages(texts)
            }
        }

        impl<T: CrossEncoder + ?Sized> CrossEncoder for std::$($ptr)::+<T> {
            fn identity(&self) -> String {
                (**self).identity()
            }
            fn labels(&self) -> Vec<String> {
                (**self).labels()
            }
            fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError> {
                (**self).logits(pairs)
            }
        }

        impl<T: TokenClassifier + ?Sized> TokenClassifier for std::$($ptr)::+<T> {
            fn identity(&self) -> String {
                (**self).identity()
            }
            fn labels(&self) -> Vec<String> {
                (**self).labels()
            }
            fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<TokenPrediction>>, ModelError> {
                (**self).classify(texts)
            }
        }

        impl<T: Judge + ?Sized> Judge for std::$($ptr)::+<T> {
            fn identity(&self) -> String {
                (**self).identity()
            }
            fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
                (**self).generate(prompt, params)
            }
            fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
                (**self).label_probs(prompt, labels)
            }
            fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
                (**self).generate_many(requests)
            }
            fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
                (**self).label_probs_many(requests)
            }
            fn usage(&self) -> Usage {
                (**self).usage()
            }
        }
    };
}

forward_through!(boxed::Box);
forward_through!(sync::Arc);

/// The contextual token vectors of one text from a [`TokenEmbedder`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenEmbedding {
    /// Token strings as in the tokenizer's vocabulary (e.g. `[CLS]`, `para`, `##graph`).
    pub tokens: Vec<String>,
    /// Token ids, one per token.
    pub ids: Vec<u32>,
    /// `true` for special tokens (`[CLS]`, `[SEP]`, ...) added by the tokenizer.
    pub special: Vec<bool>,
    /// One last-hidden-state vector per token (not normalised).
    pub vectors: Vec<Vec<f32>>,
}

/// Contextual token embeddings (the encoder's last hidden state per token), as
/// sentence-transformers' `encode(..., output_value="token_embeddings")`; used by BERTScore.
pub trait TokenEmbedder: Send + Sync {
    /// Model identity for caches.
    fn identity(&self) -> String;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// Per text, its tokens (special tokens included and flagged) with their vectors, in order.
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError>;
}

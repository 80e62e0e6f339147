//! RUBER over pooled sentence embeddings: the unreferenced scorer (a small network trained on
//! (query, reply) pairs against sampled negatives), the referenced score (cosine of reply and
//! reference) and their blend.
//!
//! Papers (see `docs/papers.md`; cited by section title):
//! - **RUBER**: C. Tao, L. Mou, D. Zhao, R. Yan, *RUBER: An Unsupervised Method for Automatic
//!   Evaluation of Open-Domain Dialog Systems*, AAAI 2018. "Referenced metric": cosine of pooled
//!   word embeddings of reply and ground truth; "Unreferenced metric": a neural scorer of
//!   query-reply relatedness on `[q; q^T M r; r]`, trained with negative sampling; "Hybrid
//!   approach": both scores normalised to [0, 1], then blended by min, max, geometric or
//!   arithmetic mean.
//! - **RUBER-BERT**: S. Ghazarian, J. T.-Z. Wei, A. Galstyan, N. Peng, *Better Automatic
//!   Evaluation of Open-Domain Dialogue Systems with Contextualized Embeddings*, NeuralGen workshop
//!   at NAACL 2019, proposed models (its Figure 2): the same two metrics on contextual (BERT)
//!   embeddings; the Bi-RNN encoders of the unreferenced scorer are replaced by pooling of the token
//!   vectors (max and mean pooling are compared), and the ranking loss by an MLP classifier trained
//!   with cross-entropy.
//!
//! What is implemented, exactly:
//! - **Unreferenced** ([`RuberUnreferenced`]): input the pooled query vector `q` and reply vector
//!   `r` (dimension `d`); features `x = [q; q^T M r; r]` (`2d + 1` values: RUBER's bilinear
//!   "quadratic" term with a learned `d x d` matrix `M`, between the two vectors); then
//!   [`RuberParams::hidden`] fully connected `tanh` layers and one sigmoid output unit:
//!   `s_U(q, r) = sigmoid(w^T h + b)`. Trained with binary cross-entropy as RUBER-BERT (label 1
//!   for a record's own pair, 0 for a negative), with AdamW on candle's autodiff, in mini-batches.
//! - **Negatives**: each epoch draws [`RuberParams::negatives`] negatives per true pair afresh:
//!   the pair indices are shuffled with a ChaCha8 generator seeded by [`RuberParams::seed`] and pair
//!   `i` takes the reply of the first pair at or after position `i` of that order (cyclically)
//!   whose query differs from its own. Pairs that share a query (several systems answering the same
//!   question) are therefore never each other's negatives: a reply to the same query is not a
//!   known-bad reply. With a single distinct query no negative exists and training is refused.
//! - **Referenced** ([`referenced`]): cosine similarity of the pooled vectors of reply and
//!   reference. The pooling is mean pooling over all token vectors, the encoder's own (the default
//!   sentence encoder was trained with it); RUBER pools static word vectors by max and min, and
//!   RUBER-BERT compares max and mean pooling of BERT's token vectors.
//! - **Blend** ([`combined`]): the arithmetic mean of the two normalised scores
//!   ([`Blend::Arithmetic`]), one of RUBER's four heuristics: it moves with both scores everywhere
//!   (min and max ignore one of them, the geometric mean is 0 whenever one score is), which suits
//!   a feature for learned fusion. All four are available through [`Blend`].
//!
//! Differences from the papers:
//! - The encoder is the product's sentence embedder (by default all-MiniLM-L6-v2, 384 dimensions,
//!   mean pooled and L2-normalised), not BERT-base; the vectors are used as the embedder gives them.
//! - Normalisation is per record, with fixed ranges, instead of RUBER's min-max over the scored set
//!   (which makes one record's score depend on the others): the unreferenced score is a probability
//!   already in [0, 1], the referenced cosine is clipped to [0, 1] ([`normalise_referenced`];
//!   cosines of this kind of encoder are near 0 for unrelated texts and rarely negative).
//! - No dropout and no early stopping on a validation split: a fixed number of epochs, so that the
//!   same seed and data give the same weights; the weight decay of AdamW is the only regulariser.
//! - Weights start from the seeded generator too: `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` for every
//!   layer (PyTorch's default for linear layers) and for `M` (`fan_in = d`).
//!
//! Scoring ([`RuberUnreferenced::score`]) is a plain-Rust forward pass in `f64` over the saved `f32`
//! weights; it needs no candle.

use crate::FusionError;
use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// The `kind` field of a saved unreferenced RUBER model.
pub const MODEL_KIND: &str = "ruber_unreferenced";
/// The layout version of a saved model this code reads and writes.
pub const MODEL_VERSION: u32 = 1;

/// Training settings of the unreferenced scorer. The defaults are the choices the papers leave
/// open, fixed here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuberParams {
    /// Sizes of the `tanh` hidden layers between the features and the sigmoid output (default
    /// one layer of 64, as RUBER's one-hidden-layer MLP; an empty list is a logistic regression on
    /// the features). Deeper stacks (e.g. 256, 512, 128) fit a few hundred pairs too closely: on
    /// held-out queries they separate true from other-query replies less well.
    pub hidden: Vec<usize>,
    /// Passes over the true pairs (default 10), each with freshly drawn negatives.
    pub epochs: usize,
    /// Examples (true and negative pairs) per gradient step (default 64).
    pub batch_size: usize,
    /// AdamW learning rate (default 1e-3).
    pub learning_rate: f64,
    /// AdamW decoupled weight decay (default 1e-4).
    pub weight_decay: f64,
    /// Negative pairs drawn per true pair and epoch (default 1: balanced classes, so the output
    /// reads as the probability that the reply belongs to the query).
    pub negatives: usize,
    /// Seed of the weight initialisation, the negatives and the example order (default 0).
    pub seed: u64,
}

impl Default for RuberParams {
    fn default() -> Self {
        Self {
            hidden: vec![64],
            epochs: 10,
            batch_size: 64,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            negatives: 1,
            seed: 0,
        }
    }
}

impl RuberParams {
    /// Fails with a [`FusionError::Params`] naming the first setting out of range.
    pub fn check(&self) -> Result<(), FusionError> {
        let bad = |what: String| Err(FusionError::Params(format!("RUBER: {what}")));
        if let Some(i) = self.hidden.iter().position(|&h| h == 0) {
            return bad(format!("hidden layer {} has size 0", i + 1));
        }
        if self.epochs == 0 {
            return bad("epochs must be at least 1".into());
        }
        if self.batch_size == 0 {
            return bad("batch size must be at least 1".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(format!("learning rate must be a positive number, got {}", self.learning_rate));
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad(format!("weight decay must be a number >= 0, got {}", self.weight_decay));
        }
        if self.negatives == 0 {
            return bad("negatives per true pair must be at least 1".into());
        }
        Ok(())
    }
}

/// One fully connected layer: `y = x W + b` with `W` stored row-major as `inputs x outputs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Dense {
    inputs: usize,
    outputs: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Dense {
    /// `x W + b` in `f64`.
    fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut y: Vec<f64> = self.bias.iter().map(|&b| f64::from(b)).collect();
        for (i, &xi) in x.iter().enumerate() {
            let row = &self.weight[i * self.outputs..(i + 1) * self.outputs];
            for (yo, &w) in y.iter_mut().zip(row) {
                *yo += xi * f64::from(w);
            }
        }
        y
    }
}

/// How training went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuberTraining {
    /// True (query, reply) pairs trained on.
    pub pairs: usize,
    /// Distinct queries among them.
    pub distinct_queries: usize,
    /// Mean binary cross-entropy over the examples of the last epoch.
    pub final_loss: f64,
}

/// RUBER's unreferenced scorer over pooled embeddings (see the module docs for the exact model),
/// tied to the encoder whose vectors it was trained on. Saved and loaded as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuberUnreferenced {
    kind: String,
    version: u32,
    encoder: String,
    dim: usize,
    params: RuberParams,
    training: RuberTraining,
    /// `M`, row-major `dim x dim`: the bilinear term is `sum_ij q_i M_ij r_j`.
    bilinear: Vec<f32>,
    /// The hidden layers (`tanh`), then the output layer (one unit, sigmoid).
    layers: Vec<Dense>,
}

/// The first line of a candle error, as a training error.
fn candle_error(e: candle_core::Error) -> FusionError {
    let msg = e.to_string();
    FusionError::Training(format!("RUBER training: {}", msg.lines().next().unwrap_or("candle error")).into())
}

/// Checks that `vectors` are non-empty, all of length `dim` (the first one's when `None`) and finite.
fn check_vectors(what: &str, vectors: &[Vec<f32>], dim: Option<usize>) -> Result<usize, FusionError> {
    let dim = match dim.or_else(|| vectors.first().map(Vec::len)) {
        Some(0) | None => return Err(FusionError::Data(format!("RUBER: the {what} vectors are empty"))),
        Some(d) => d,
    };
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dim {
            return Err(FusionError::Data(format!("RUBER: {what} vector {i} has {} values, expected {dim}", v.len())));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(FusionError::Data(format!("RUBER: {what} vector {i} has a non-finite value")));
        }
    }
    Ok(dim)
}

/// `U(-bound, bound)` values from the generator.
fn uniform(rng: &mut ChaCha8Rng, n: usize, bound: f32) -> Vec<f32> {
    (0..n).map(|_| rng.gen_range(-bound..=bound)).collect()
}

/// Group id of each query vector (equal vectors, bit for bit, share a group), and the group count.
fn query_groups(qs: &[Vec<f32>]) -> (Vec<usize>, usize) {
    let mut ids: HashMap<Vec<u32>, usize> = HashMap::new();
    let groups = qs
        .iter()
        .map(|q| {
            let key: Vec<u32> = q.iter().map(|x| x.to_bits()).collect();
            let next = ids.len();
            *ids.entry(key).or_insert(next)
        })
        .collect();
    (groups, ids.len())
}

/// One negative per pair: pair `i` takes the first pair at or after position `i` of a seeded
/// shuffle (cyclically) whose query group differs from its own.
fn draw_negatives(rng: &mut ChaCha8Rng, groups: &[usize]) -> Vec<usize> {
    let n = groups.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    (0..n)
        .map(|i| (0..n).map(|t| order[(i + t) % n]).find(|&j| groups[j] != groups[i]).unwrap_or((i + 1) % n))
        .collect()
}

/// The trainable tensors of the network.
struct Net {
    m: Var,
    layers: Vec<(Var, Var)>,
}

impl Net {
    fn init(dim: usize, hidden: &[usize], rng: &mut ChaCha8Rng, dev: &Device) -> Result<Self, FusionError> {
        let bound = |fan_in: usize| 1.0 / (fan_in as f32).sqrt();
        let m = Var::from_vec(uniform(rng, dim * dim, bound(dim)), (dim, dim), dev).map_err(candle_error)?;
        let mut layers = Vec::new();
        let mut inputs = 2 * dim + 1;
        for &outputs in hidden.iter().chain(std::iter::once(&1)) {
            let w = Var::from_vec(uniform(rng, inputs * outputs, bound(inputs)), (inputs, outputs), dev)
                .map_err(candle_error)?;
            let b = Var::from_vec(uniform(rng, outputs, bound(inputs)), (1, outputs), dev).map_err(candle_error)?;
            layers.push((w, b));
            inputs = outputs;
        }
        Ok(Self { m, layers })
    }

    fn vars(&self) -> Vec<Var> {
        std::iter::once(self.m.clone()).chain(self.layers.iter().flat_map(|(w, b)| [w.clone(), b.clone()])).collect()
    }

    /// Logits `[batch, 1]` of query rows `q` and reply rows `r`.
    fn logits(&self, q: &Tensor, r: &Tensor) -> candle_core::Result<Tensor> {
        let bilinear = (q.matmul(self.m.as_tensor())? * r)?.sum_keepdim(1)?;
        let mut x = Tensor::cat(&[q, &bilinear, r], 1)?;
        let last = self.layers.len() - 1;
        for (i, (w, b)) in self.layers.iter().enumerate() {
            x = x.matmul(w.as_tensor())?.broadcast_add(b.as_tensor())?;
            if i < last {
                x = x.tanh()?;
            }
        }
        Ok(x)
    }
}

/// Mean binary cross-entropy of logits `z` against labels `y`, in the stable form
/// `max(z, 0) - z y + ln(1 + exp(-|z|))`.
fn bce_with_logits(z: &Tensor, y: &Tensor) -> candle_core::Result<Tensor> {
    let soft = z.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?;
    ((z.relu()? - (z * y)?)? + soft)?.mean_all()
}

/// One gradient step on a batch of (query index, reply index, label); returns the batch's loss.
fn train_step(
    net: &Net,
    opt: &mut AdamW,
    all_q: &Tensor,
    all_r: &Tensor,
    batch: &[(u32, u32, f32)],
) -> candle_core::Result<f32> {
    let dev = all_q.device();
    let rows =
        |f: fn(&(u32, u32, f32)) -> u32| Tensor::from_vec(batch.iter().map(f).collect::<Vec<u32>>(), batch.len(), dev);
    let q = all_q.index_select(&rows(|e| e.0)?, 0)?;
    let r = all_r.index_select(&rows(|e| e.1)?, 0)?;
    let y = Tensor::from_vec(batch.iter().map(|e| e.2).collect::<Vec<f32>>(), (batch.len(), 1), dev)?;
    let loss = bce_with_logits(&net.logits(&q, &r)?, &y)?;
    opt.backward_step(&loss)?;
    loss.to_scalar::<f32>()
}

/// A tensor's values as one flat vector.
fn flat(t: &Tensor) -> Result<Vec<f32>, FusionError> {
    t.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(candle_error)
}

impl RuberUnreferenced {
    /// Trains the scorer on true pairs `(pairs_q[i], pairs_r[i])` against negatives drawn from
    /// other pairs' replies (module docs), on vectors of the encoder named `encoder` (its identity,
    /// e.g. `minilm:0123456789abcdef`). Deterministic on CPU: the same data, parameters and seed
    /// give the same weights.
    pub fn fit(
        pairs_q: &[Vec<f32>],
        pairs_r: &[Vec<f32>],
        params: &RuberParams,
        encoder: &str,
    ) -> Result<Self, FusionError> {
        params.check()?;
        if encoder.trim().is_empty() {
            return Err(FusionError::Params("RUBER: the encoder name is empty".into()));
        }
        if pairs_q.len() != pairs_r.len() {
            return Err(FusionError::Data(format!(
                "RUBER: {} query vectors but {} reply vectors",
                pairs_q.len(),
                pairs_r.len()
            )));
        }
        if pairs_q.is_empty() {
            return Err(FusionError::Data("RUBER: no (query, reply) pairs to train on".into()));
        }
        let dim = check_vectors("query", pairs_q, None)?;
        check_vectors("reply", pairs_r, Some(dim))?;
        let (groups, distinct) = query_groups(pairs_q);
        if distinct < 2 {
            return Err(FusionError::Data(
                "RUBER: every pair has the same query, so no negative pair can be drawn (a negative takes the reply of a pair with another query)".into(),
            ));
        }

        let n = pairs_q.len();
        let dev = Device::Cpu;
        let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
        let net = Net::init(dim, &params.hidden, &mut rng, &dev)?;
        let to_tensor = |vs: &[Vec<f32>]| {
            Tensor::from_vec(vs.iter().flatten().copied().collect::<Vec<f32>>(), (n, dim), &dev).map_err(candle_error)
        };
        let (all_q, all_r) = (to_tensor(pairs_q)?, to_tensor(pairs_r)?);
        let adam =
            ParamsAdamW { lr: params.learning_rate, weight_decay: params.weight_decay, ..ParamsAdamW::default() };
        let mut opt = AdamW::new(net.vars(), adam).map_err(candle_error)?;

        let mut final_loss = f64::NAN;
        for epoch in 0..params.epochs {
            // (query index, reply index, label): the true pairs, then the negatives.
            let mut examples: Vec<(u32, u32, f32)> = (0..n).map(|i| (i as u32, i as u32, 1.0)).collect();
            for _ in 0..params.negatives {
                let neg = draw_negatives(&mut rng, &groups);
                examples.extend(neg.iter().enumerate().map(|(i, &j)| (i as u32, j as u32, 0.0)));
            }
            examples.shuffle(&mut rng);
            let (mut total, mut count) = (0.0f64, 0usize);
            for batch in examples.chunks(params.batch_size) {
                let loss = train_step(&net, &mut opt, &all_q, &all_r, batch).map_err(candle_error)?;
                if !loss.is_finite() {
                    return Err(FusionError::Training(
                        format!(
                            "RUBER training: the loss became {loss} in epoch {} (try a lower learning rate)",
                            epoch + 1
                        )
                        .into(),
                    ));
                }
                total += f64::from(loss) * batch.len() as f64;
                count += batch.len();
            }
            final_loss = total / count as f64;
        }

        let mut layers = Vec::with_capacity(net.layers.len());
        let mut inputs = 2 * dim + 1;
        for (w, b) in &net.layers {
            let bias = flat(b.as_tensor())?;
            layers.push(Dense { inputs, outputs: bias.len(), weight: flat(w.as_tensor())?, bias });
            inputs = layers.last().map_or(inputs, |l| l.outputs);
        }
        let model = Self {
            kind: MODEL_KIND.into(),
            version: MODEL_VERSION,
            encoder: encoder.to_string(),
            dim,
            params: params.clone(),
            training: RuberTraining { pairs: n, distinct_queries: distinct, final_loss },
            bilinear: flat(net.m.as_tensor())?,
            layers,
        };
        model.check_weights().map_err(|e| FusionError::Training(format!("RUBER training: {e}").into()))?;
        Ok(model)
    }

    /// `s_U(q, r)` in (0, 1): how likely `r` is a reply to `q`, from the pooled vectors of the
    /// encoder the model was trained on.
    pub fn score(&self, q: &[f32], r: &[f32]) -> Result<f64, FusionError> {
        for (what, v) in [("query", q), ("reply", r)] {
            if v.len() != self.dim {
                return Err(FusionError::Data(format!(
                    "RUBER: the {what} vector has {} values, but the model was trained on {}-dimensional vectors of `{}`",
                    v.len(),
                    self.dim,
                    self.encoder
                )));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(FusionError::Data(format!("RUBER: the {what} vector has a non-finite value")));
            }
        }
        let d = self.dim;
        let bilinear: f64 = q
            .iter()
            .enumerate()
            .map(|(i, &qi)| {
                let row = &self.bilinear[i * d..(i + 1) * d];
                f64::from(qi) * row.iter().zip(r).map(|(&m, &rj)| f64::from(m) * f64::from(rj)).sum::<f64>()
            })
            .sum();
        let mut x: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
        x.push(bilinear);
        x.extend(r.iter().map(|&v| f64::from(v)));
        let last = self.layers.len() - 1;
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.apply(&x);
            if i < last {
                x.iter_mut().for_each(|v| *v = v.tanh());
            }
        }
        let z = x.first().copied().unwrap_or(f64::NAN);
        let s = 1.0 / (1.0 + (-z).exp());
        if s.is_finite() {
            Ok(s)
        } else {
            Err(FusionError::Model("RUBER: the model gave a non-finite score".into()))
        }
    }

    /// Fails with a [`FusionError::Model`] unless the model was trained on vectors of `encoder`
    /// (same identity) with `dim` dimensions: scores on another encoder's vectors mean nothing.
    pub fn check_encoder(&self, encoder: &str, dim: usize) -> Result<(), FusionError> {
        if self.encoder != encoder || self.dim != dim {
            return Err(FusionError::Model(format!(
                "the RUBER model was trained on {}-dimensional embeddings of `{}`, not on {dim}-dimensional embeddings of `{encoder}`; train it again with this embedder",
                self.dim, self.encoder
            ).into()));
        }
        Ok(())
    }

    /// The identity of the encoder the model was trained on.
    pub fn encoder(&self) -> &str {
        &self.encoder
    }

    /// The dimension of the vectors it scores.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The settings it was trained with.
    pub fn params(&self) -> &RuberParams {
        &self.params
    }

    /// How training went.
    pub fn training(&self) -> &RuberTraining {
        &self.training
    }

    /// Writes the model as JSON.
    pub fn save(&self, path: &Path) -> Result<(), FusionError> {
        let json = serde_json::to_string(self).map_err(|e| {
            FusionError::Model(format!("{}: cannot serialise the RUBER model: {e}", path.display()).into())
        })?;
        ragjudge_artifacts::write_atomic(path, json.as_bytes()).map_err(|e| FusionError::Model(e.to_string().into()))
    }

    /// Reads a model written by [`RuberUnreferenced::save`], checking its layout.
    pub fn load(path: &Path) -> Result<Self, FusionError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| FusionError::Model(format!("{}: cannot read: {e}", path.display()).into()))?;
        let model: Self = serde_json::from_str(&text).map_err(|e| {
            FusionError::Model(
                format!("{}: not a RUBER model: {}", path.display(), e.to_string().replace('\n', " ")).into(),
            )
        })?;
        model.check_weights().map_err(|e| FusionError::Model(format!("{}: {e}", path.display()).into()))?;
        Ok(model)
    }

    /// Checks the kind, version and the shapes and values of the weights.
    fn check_weights(&self) -> Result<(), String> {
        if self.kind != MODEL_KIND {
            return Err(format!("kind `{}` is not `{MODEL_KIND}`", self.kind));
        }
        if self.version != MODEL_VERSION {
            return Err(format!("layout version {} (this ragjudge reads {MODEL_VERSION})", self.version));
        }
        if self.dim == 0 || self.bilinear.len() != self.dim * self.dim {
            return Err(format!("`bilinear` has {} values for dimension {}", self.bilinear.len(), self.dim));
        }
        let mut inputs = 2 * self.dim + 1;
        for (i, l) in self.layers.iter().enumerate() {
            if l.inputs != inputs
                || l.outputs == 0
                || l.weight.len() != l.inputs * l.outputs
                || l.bias.len() != l.outputs
            {
                return Err(format!("layer {} has the wrong shape", i + 1));
            }
            inputs = l.outputs;
        }
        if self.layers.is_empty() || inputs != 1 {
            return Err("the last layer must have one output".into());
        }
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        if !finite(&self.bilinear) || !self.layers.iter().all(|l| finite(&l.weight) && finite(&l.bias)) {
            return Err("a weight is not finite".into());
        }
        Ok(())
    }
}

/// RUBER's referenced score: the cosine similarity of the pooled vectors of reply and reference,
/// in [-1, 1].
pub fn referenced(reply: &[f32], reference: &[f32]) -> Result<f64, FusionError> {
    if reply.is_empty() || reply.len() != reference.len() {
        return Err(FusionError::Data(format!(
            "RUBER: cosine of vectors with {} and {} values",
            reply.len(),
            reference.len()
        )));
    }
    let (mut dot, mut a, mut b) = (0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in reply.iter().zip(reference) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        a += x * x;
        b += y * y;
    }
    let cos = dot / (a.sqrt() * b.sqrt());
    if a > 0.0 && b > 0.0 && cos.is_finite() {
        Ok(cos.clamp(-1.0, 1.0))
    } else {
        Err(FusionError::Data("RUBER: cosine of a zero or non-finite vector".into()))
    }
}

/// The referenced score on RUBER's [0, 1] scale, per record: the cosine clipped to [0, 1] (module
/// docs: fixed ranges instead of min-max over the scored set).
pub fn normalise_referenced(cosine: f64) -> f64 {
    cosine.clamp(0.0, 1.0)
}

/// RUBER's heuristics for blending the two normalised scores ("Hybrid approach").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Blend {
    /// The smaller score.
    Min,
    /// The larger score.
    Max,
    /// `sqrt(a b)`.
    Geometric,
    /// `(a + b) / 2` (the `ruber` column).
    Arithmetic,
}

impl Blend {
    /// Blends two scores in [0, 1].
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Blend::Min => a.min(b),
            Blend::Max => a.max(b),
            Blend::Geometric => (a * b).sqrt(),
            Blend::Arithmetic => (a + b) / 2.0,
        }
    }
}

/// The RUBER score of a reply: the arithmetic mean of the normalised referenced cosine and the
/// unreferenced score (module docs).
pub fn combined(referenced_cosine: f64, unreferenced: f64) -> f64 {
    Blend::Arithmetic.apply(normalise_referenced(referenced_cosine), unreferenced)
}

//! Training with candle's autodiff on the CPU, and the candle forward pass used as the reference
//! for the plain-loop predictor. The equations are in the module docs of [`crate::moe`].

use candle_core::{Device, Tensor, Var, D};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Head, MoeKind, MoeModel, MoeParams, Objective, Param, Weights};
use crate::FusionError;
use ragjudge_models::Reason;

/// A candle error as a one-line training error.
fn training_err(e: candle_core::Error) -> FusionError {
    FusionError::Training(Reason::caused("moe: candle", e))
}

/// The tensors of one model, in a fixed order: embeddings, then the head's weights.
struct Net {
    kind: MoeKind,
    /// (M N, D): row m N + b is E[m, b].
    table: Tensor,
    /// Concat: w1 (hidden, M D), b1 (hidden), w2 (1, hidden), b2 (1).
    /// Gated: wg (M, M D), bg (M), we (M, D), ce (M), b (1).
    head: Vec<Tensor>,
    m: usize,
    n: usize,
    d: usize,
}

impl Net {
    /// Builds the network from weights; with `trainable`, every tensor is a candle `Var`, returned
    /// in the order of `Weights::params`.
    fn new(
        w: &Weights,
        kind: MoeKind,
        m: usize,
        n: usize,
        d: usize,
        trainable: bool,
    ) -> candle_core::Result<(Net, Vec<Var>)> {
        let dev = Device::Cpu;
        let mut vars = Vec::new();
        let mut make = |p: &Param, shape: &[usize]| -> candle_core::Result<Tensor> {
            let t = Tensor::from_slice(&p.data, shape, &dev)?;
            if trainable {
                let v = Var::from_tensor(&t)?;
                let t = v.as_tensor().clone();
                vars.push(v);
                Ok(t)
            } else {
                Ok(t)
            }
        };
        let table = make(&w.embeddings, &[m * n, d])?;
        let head = match &w.head {
            Head::Concat { w1, b1, w2, b2 } => {
                let h = w1.shape[0];
                vec![make(w1, &[h, m * d])?, make(b1, &[h])?, make(w2, &[1, h])?, make(b2, &[1])?]
            }
            Head::Gated { wg, bg, we, ce, b } => {
                vec![make(wg, &[m, m * d])?, make(bg, &[m])?, make(we, &[m, d])?, make(ce, &[m])?, make(b, &[1])?]
            }
        };
        Ok((Net { kind, table, head, m, n, d }, vars))
    }

    /// The network output z, shape (B), for a batch of B records whose bins are `idx`
    /// ((B M) entries m N + b_m, record-major). `mask`, when given, multiplies the expert
    /// embeddings (shape (B, M, D)): inverted dropout.
    fn forward(&self, idx: &Tensor, b: usize, mask: Option<&Tensor>) -> candle_core::Result<Tensor> {
        let (m, d) = (self.m, self.d);
        let mut e = self.table.index_select(idx, 0)?.reshape((b, m, d))?;
        if let Some(mask) = mask {
            e = (e * mask)?;
        }
        let h = e.reshape((b, m * d))?;
        match self.kind {
            MoeKind::Concat => {
                let (w1, b1, w2, b2) = (&self.head[0], &self.head[1], &self.head[2], &self.head[3]);
                let a = h.matmul(&w1.t()?)?.broadcast_add(b1)?.relu()?;
                a.matmul(&w2.t()?)?.broadcast_add(b2)?.reshape(b)
            }
            MoeKind::Gated => {
                let (wg, bg, we, ce, bias) =
                    (&self.head[0], &self.head[1], &self.head[2], &self.head[3], &self.head[4]);
                let logits = h.matmul(&wg.t()?)?.broadcast_add(bg)?;
                // softmax is shift-invariant: subtracting the (detached) row maximum changes no
                // value or gradient and keeps exp finite.
                let logits = logits.broadcast_sub(&logits.max_keepdim(D::Minus1)?.detach())?;
                let num = logits.exp()?;
                let g = num.broadcast_div(&num.sum_keepdim(D::Minus1)?)?;
                let s = e.broadcast_mul(&we.unsqueeze(0)?)?.sum(D::Minus1)?.broadcast_add(ce)?;
                (g * s)?.sum(D::Minus1)?.broadcast_add(bias)
            }
        }
    }

    /// The flat indices m N + b_m of a batch of binned records.
    fn indices(
        &self,
        binned: &[Vec<usize>],
        rows: impl Iterator<Item = usize>,
    ) -> candle_core::Result<(Tensor, usize)> {
        let mut idx = Vec::new();
        let mut b = 0;
        for r in rows {
            idx.extend(binned[r].iter().enumerate().map(|(m, &bin)| (m * self.n + bin) as u32));
            b += 1;
        }
        Ok((Tensor::from_vec(idx, b * self.m, &Device::Cpu)?, b))
    }
}

/// A standard normal draw (Box-Muller on two uniforms of the stream).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn uniform_param(rng: &mut ChaCha8Rng, shape: &[usize], fan_in: usize) -> Param {
    let bound = 1.0 / (fan_in as f64).sqrt();
    let len = shape.iter().product();
    Param { shape: shape.to_vec(), data: (0..len).map(|_| rng.gen_range(-bound..bound) as f32).collect() }
}

/// Initial weights drawn from the stream: E ~ N(0, 1), linear maps ~ U(-1/sqrt(fan_in),
/// 1/sqrt(fan_in)), MoE-CIU's final bias 0.
fn init(rng: &mut ChaCha8Rng, m: usize, p: &MoeParams) -> Weights {
    let (n, d, h) = (p.n_bins, p.embedding_dim, p.hidden);
    let embeddings = Param { shape: vec![m, n, d], data: (0..m * n * d).map(|_| normal(rng) as f32).collect() };
    let head = match p.kind {
        MoeKind::Concat => Head::Concat {
            w1: uniform_param(rng, &[h, m * d], m * d),
            b1: uniform_param(rng, &[h], m * d),
            w2: uniform_param(rng, &[h], h),
            b2: uniform_param(rng, &[1], h),
        },
        MoeKind::Gated => Head::Gated {
            wg: uniform_param(rng, &[m, m * d], m * d),
            bg: uniform_param(rng, &[m], m * d),
            we: uniform_param(rng, &[m, d], d),
            ce: uniform_param(rng, &[m], d),
            b: Param { shape: vec![1], data: vec![0.0] },
        },
    };
    Weights { embeddings, head }
}

/// The mean loss of a batch: MSE on standardised labels, or binary cross-entropy with logits
/// max(z, 0) - z y + ln(1 + exp(-|z|)).
fn loss(z: &Tensor, y: &Tensor, objective: Objective) -> candle_core::Result<Tensor> {
    match objective {
        Objective::Regression => (z - y)?.sqr()?.mean_all(),
        Objective::Binary => {
            let soft = z.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?;
            ((z.relu()? - (z * y)?)? + soft)?.mean_all()
        }
    }
}

/// Copies the trained tensors back into `Weights` of the same layout.
fn read_back(init: Weights, vars: &[Var]) -> candle_core::Result<Weights> {
    let mut it = vars.iter();
    let mut take = |p: Param| -> candle_core::Result<Param> {
        let v = it.next().ok_or_else(|| candle_core::Error::Msg("moe: a weight is missing".into()))?;
        Ok(Param { shape: p.shape, data: v.as_tensor().flatten_all()?.to_vec1::<f32>()? })
    };
    let embeddings = take(init.embeddings)?;
    let head = match init.head {
        Head::Concat { w1, b1, w2, b2 } => Head::Concat { w1: take(w1)?, b1: take(b1)?, w2: take(w2)?, b2: take(b2)? },
        Head::Gated { wg, bg, we, ce, b } => {
            Head::Gated { wg: take(wg)?, bg: take(bg)?, we: take(we)?, ce: take(ce)?, b: take(b)? }
        }
    };
    Ok(Weights { embeddings, head })
}

/// Trains on binned rows and (standardised or 0/1) targets; returns the trained weights.
pub(super) fn train(binned: &[Vec<usize>], targets: &[f32], m: usize, p: &MoeParams) -> Result<Weights, FusionError> {
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let start = init(&mut rng, m, p);
    let (net, vars) = Net::new(&start, p.kind, m, p.n_bins, p.embedding_dim, true).map_err(training_err)?;
    let mut opt = AdamW::new(
        vars.clone(),
        ParamsAdamW { lr: p.learning_rate, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: p.weight_decay },
    )
    .map_err(training_err)?;
    let keep = 1.0 - p.dropout;
    let mut order: Vec<usize> = (0..binned.len()).collect();
    for epoch in 0..p.epochs {
        order.shuffle(&mut rng);
        let mut epoch_loss = 0.0f64;
        for batch in order.chunks(p.batch_size) {
            let (idx, b) = net.indices(binned, batch.iter().copied()).map_err(training_err)?;
            let y: Vec<f32> = batch.iter().map(|&r| targets[r]).collect();
            let y = Tensor::from_vec(y, b, &Device::Cpu).map_err(training_err)?;
            let mask = if p.dropout > 0.0 {
                let scale = (1.0 / keep) as f32;
                let mask: Vec<f32> =
                    (0..b * m * p.embedding_dim).map(|_| if rng.gen::<f64>() < keep { scale } else { 0.0 }).collect();
                Some(Tensor::from_vec(mask, (b, m, p.embedding_dim), &Device::Cpu).map_err(training_err)?)
            } else {
                None
            };
            let z = net.forward(&idx, b, mask.as_ref()).map_err(training_err)?;
            let l = loss(&z, &y, p.objective).map_err(training_err)?;
            opt.backward_step(&l).map_err(training_err)?;
            epoch_loss += f64::from(l.to_scalar::<f32>().map_err(training_err)?);
        }
        if !epoch_loss.is_finite() {
            return Err(FusionError::Training(format!("moe: the loss is not finite at epoch {}", epoch + 1).into()));
        }
    }
    read_back(start, &vars).map_err(training_err)
}

/// The network output z of each binned row, through candle, with the model's stored weights
/// (no dropout).
pub(super) fn forward_reference(model: &MoeModel, binned: &[Vec<usize>]) -> Result<Vec<f64>, FusionError> {
    let model_err = |e: candle_core::Error| FusionError::Model(Reason::caused("moe: candle", e));
    if binned.is_empty() {
        return Ok(Vec::new());
    }
    let p = &model.params;
    let (net, _) = Net::new(&model.weights, p.kind, model.bins.n_metrics(), p.n_bins, p.embedding_dim, false)
        .map_err(model_err)?;
    let (idx, b) = net.indices(binned, 0..binned.len()).map_err(model_err)?;
    let z = net.forward(&idx, b, None).map_err(model_err)?;
    let z = z.to_vec1::<f32>().map_err(model_err)?;
    Ok(z.into_iter().map(f64::from).collect())
}

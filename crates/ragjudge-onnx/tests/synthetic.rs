//! ONNX graphs written by the tests themselves (with `prost`), read back and converted.

use std::collections::BTreeMap;

use prost::Message;
use ragjudge_onnx::proto::{
    data_type, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, ValueInfoProto,
};
use ragjudge_onnx::{bert::linear, decode_model, Dense, Graph};

fn f32_tensor(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    assert_eq!(dims.iter().product::<i64>() as usize, values.len());
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: data_type::FLOAT,
        raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ..Default::default()
    }
}

fn u8_tensor(name: &str, dims: &[i64], values: &[u8]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: data_type::UINT8,
        raw_data: values.to_vec(),
        ..Default::default()
    }
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: 2, i, ..Default::default() }
}

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: format!("{op}_{}", outputs[0]),
        ..Default::default()
    }
}

/// A `MatMulNBits` node (4 bits, no zero points) with the given attributes.
fn nbits(inputs: &[&str], output: &str, k: i64, n: i64, block_size: i64) -> NodeProto {
    NodeProto {
        domain: "com.microsoft".into(),
        attribute: vec![int_attr("K", k), int_attr("N", n), int_attr("bits", 4), int_attr("block_size", block_size)],
        ..node("MatMulNBits", inputs, outputs_of(output))
    }
}

fn outputs_of(o: &str) -> &[&str] {
    Box::leak(Box::new([Box::leak(o.to_string().into_boxed_str()) as &str]))
}

fn model(graph: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: 8,
        opset_import: vec![
            OperatorSetIdProto { domain: String::new(), version: 18 },
            OperatorSetIdProto { domain: "com.microsoft".into(), version: 1 },
        ],
        producer_name: "ragjudge-onnx tests".into(),
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
}

fn inputs(names: &[&str]) -> Vec<ValueInfoProto> {
    names.iter().map(|n| ValueInfoProto { name: n.to_string() }).collect()
}

#[test]
fn matmul_nbits_node_is_dequantised_to_a_linear_weight() {
    // K = 4 inputs, N = 2 outputs, block_size 4: one block of 2 bytes per output row.
    // Row 0 bytes [0x9A, 0x7F] -> nibbles (low first) 10, 9, 15, 7; scale 0.5, default zero point 8:
    //   (10-8)·0.5 = 1, (9-8)·0.5 = 0.5, (15-8)·0.5 = 3.5, (7-8)·0.5 = -0.5.
    // Row 1 bytes [0x08, 0x80] -> nibbles 8, 0, 0, 8; scale 0.25: 0, -2, -2, 0.
    // The bias Add follows with [0.1, -0.2] (bias first, as ONNX exporters of BERT write it).
    let graph = GraphProto {
        name: "nbits".into(),
        node: vec![nbits(&["x", "B", "scales"], "xw", 4, 2, 4), node("Add", &["bias", "xw"], &["y"])],
        initializer: vec![
            u8_tensor("B", &[2, 1, 2], &[0x9A, 0x7F, 0x08, 0x80]),
            f32_tensor("scales", &[2], &[0.5, 0.25]),
            f32_tensor("bias", &[2], &[0.1, -0.2]),
        ],
        input: inputs(&["x"]),
        output: inputs(&["y"]),
    };
    let bytes = model(graph);
    let m = decode_model(&bytes).unwrap();
    assert_eq!(m.opset_import[1].domain, "com.microsoft");
    let g = Graph::new(m.graph.as_ref().unwrap(), None);
    let l = linear(&g, 0).unwrap().expect("a linear map");
    assert_eq!(l.weight.shape, [2, 4], "Hugging Face layout [N, K]");
    assert_eq!(l.weight.values, [1.0, 0.5, 3.5, -0.5, 0.0, -2.0, -2.0, 0.0]);
    assert_eq!(l.bias.unwrap().values, [0.1, -0.2]);
    assert_eq!(l.output, "y");
    assert!(linear(&g, 1).unwrap().is_none(), "an Add is not a linear map");

    // The same node with packed zero points [0x01, 0x03] (one byte per row, one block each):
    // row 0 zero point 1 -> (10-1)·0.5 = 4.5, 4, 7, 3; row 1 zero point 3 -> 1.25, -0.75, -0.75, 1.25.
    let mut g2 = m.graph.clone().unwrap();
    g2.node[0].input.push("zp".into());
    g2.initializer.push(u8_tensor("zp", &[2], &[0x01, 0x03]));
    let g2 = Graph::new(&g2, None);
    let l = linear(&g2, 0).unwrap().unwrap();
    assert_eq!(l.weight.values, [4.5, 4.0, 7.0, 3.0, 1.25, -0.75, -0.75, 1.25]);

    // A truncated B is an error naming the tensor, not a panic.
    let mut g3 = m.graph.unwrap();
    g3.initializer[0].raw_data.pop();
    let err = linear(&Graph::new(&g3, None), 0).unwrap_err().to_string();
    assert!(err.contains("tensor `B`"), "{err}");
}

#[test]
fn garbage_is_not_a_model() {
    assert!(decode_model(&[0xff, 0xff, 0xff]).is_err());
}

const H: usize = 4; // hidden size
const I: usize = 8; // intermediate size
const V: usize = 6; // vocabulary
const P: usize = 5; // positions
const L: usize = 3; // labels

/// `n` values `base, base + 0.01, ...`: every tensor gets its own base, so a mix-up shows.
fn ramp(base: f32, n: usize) -> Vec<f32> {
    (0..n).map(|i| base + i as f32 * 0.01).collect()
}

/// A tiny BERT token classifier laid out like an ONNX export of Hugging Face's
/// `BertForTokenClassification`: quantised word embeddings gathered then dequantised, plain
/// position and segment tables, value/query/key projections in that node order (by `MatMul` with
/// `[K, N]` weights) reaching the attention `MatMul`s through Reshape/Transpose/Mul, a
/// `MatMulNBits` attention output, a `Gemm` intermediate map, and a `MatMulNBits` head.
fn tiny_bert() -> GraphProto {
    let mut init = vec![
        u8_tensor("wq8", &[V as i64, H as i64], &(0..(V * H) as u8).collect::<Vec<_>>()),
        f32_tensor("w_scale", &[], &[0.5]),
        u8_tensor("w_zp", &[], &[10]),
        f32_tensor("pos", &[P as i64, H as i64], &ramp(100.0, P * H)),
        f32_tensor("typ", &[2, H as i64], &ramp(200.0, 2 * H)),
        f32_tensor("ln0_w", &[H as i64], &ramp(1.0, H)),
        f32_tensor("ln0_b", &[H as i64], &ramp(2.0, H)),
    ];
    // Projections as ONNX MatMul weights [K, N] = W[in][out].
    for (name, base) in [("q", 10.0), ("k", 20.0), ("v", 30.0)] {
        init.push(f32_tensor(&format!("{name}_w"), &[H as i64, H as i64], &ramp(base, H * H)));
        init.push(f32_tensor(&format!("{name}_b"), &[H as i64], &ramp(base + 5.0, H)));
    }
    // Attention output: MatMulNBits, K = N = 4, block 4, all nibbles 9 (0x99), scale 0.5
    // -> every weight (9-8)·0.5 = 0.5.
    init.push(u8_tensor("ao_q4", &[H as i64, 1, 2], &[0x99; H * 2]));
    init.push(f32_tensor("ao_scales", &[H as i64], &[0.5; H]));
    init.push(f32_tensor("ao_b", &[H as i64], &ramp(40.0, H)));
    init.push(f32_tensor("ln1_w", &[H as i64], &ramp(3.0, H)));
    init.push(f32_tensor("ln1_b", &[H as i64], &ramp(4.0, H)));
    // Intermediate: Gemm with transB = 1, B already [N, K] = [8, 4].
    init.push(f32_tensor("i_w", &[I as i64, H as i64], &ramp(50.0, I * H)));
    init.push(f32_tensor("i_b", &[I as i64], &ramp(55.0, I)));
    init.push(f32_tensor("o_w", &[I as i64, H as i64], &ramp(60.0, I * H)));
    init.push(f32_tensor("o_b", &[H as i64], &ramp(65.0, H)));
    init.push(f32_tensor("ln2_w", &[H as i64], &ramp(5.0, H)));
    init.push(f32_tensor("ln2_b", &[H as i64], &ramp(6.0, H)));
    // Head: MatMulNBits K = 4, N = 3, bytes 0x10 0x32 per row -> nibbles 0, 1, 2, 3; scale 1:
    // weights -8, -7, -6, -5 on every row.
    init.push(u8_tensor("c_q4", &[L as i64, 1, 2], &[0x10, 0x32, 0x10, 0x32, 0x10, 0x32]));
    init.push(f32_tensor("c_scales", &[L as i64], &[1.0; L]));
    init.push(f32_tensor("c_b", &[L as i64], &[0.5, 0.25, 0.125]));

    let mut gemm = node("Gemm", &["ln1", "i_w", "i_b"], &["inter"]);
    gemm.attribute.push(int_attr("transB", 1));
    let nodes = vec![
        node("Gather", &["wq8", "input_ids"], &["we_q"]),
        node("DequantizeLinear", &["we_q", "w_scale", "w_zp"], &["we"]),
        node("Gather", &["typ", "token_type_ids"], &["te"]),
        node("Add", &["we", "te"], &["e1"]),
        node("Shape", &["input_ids"], &["shape"]),
        node("Slice", &["pos_ids", "zero", "shape"], &["pos_idx"]),
        node("Gather", &["pos", "pos_idx"], &["pe"]),
        node("Add", &["e1", "pe"], &["e2"]),
        node("LayerNormalization", &["e2", "ln0_w", "ln0_b"], &["h0"]),
        // Value first, then query, then key.
        node("MatMul", &["h0", "v_w"], &["v_mm"]),
        node("Add", &["v_b", "v_mm"], &["v_a"]),
        node("MatMul", &["h0", "q_w"], &["q_mm"]),
        node("Add", &["q_b", "q_mm"], &["q_a"]),
        node("MatMul", &["h0", "k_w"], &["k_mm"]),
        node("Add", &["k_mm", "k_b"], &["k_a"]),
        // The query's shape feeds the key's Reshape: a path the search must not take.
        node("Shape", &["q_a"], &["q_shape"]),
        node("Reshape", &["q_a", "heads"], &["q_r"]),
        node("Transpose", &["q_r"], &["q_t"]),
        node("Mul", &["q_t", "scale"], &["q_s"]),
        node("Reshape", &["k_a", "q_shape"], &["k_r"]),
        node("Transpose", &["k_r"], &["k_t"]),
        node("Mul", &["k_t", "scale"], &["k_s"]),
        node("Reshape", &["v_a", "heads"], &["v_r"]),
        node("Transpose", &["v_r"], &["v_t"]),
        node("MatMul", &["q_s", "k_s"], &["scores"]),
        node("Add", &["scores", "mask"], &["scores_m"]),
        node("Softmax", &["scores_m"], &["probs"]),
        node("MatMul", &["probs", "v_t"], &["ctx"]),
        node("Reshape", &["ctx", "flat"], &["ctx_r"]),
        nbits(&["ctx_r", "ao_q4", "ao_scales"], "ao_mm", 4, 4, 4),
        node("Add", &["ao_b", "ao_mm"], &["ao_a"]),
        node("Add", &["ao_a", "h0"], &["res1"]),
        node("LayerNormalization", &["res1", "ln1_w", "ln1_b"], &["ln1"]),
        gemm,
        node("Erf", &["inter"], &["act"]),
        node("MatMul", &["act", "o_w"], &["o_mm"]),
        node("Add", &["o_b", "o_mm"], &["o_a"]),
        node("Add", &["o_a", "ln1"], &["res2"]),
        node("LayerNormalization", &["res2", "ln2_w", "ln2_b"], &["h1"]),
        nbits(&["h1", "c_q4", "c_scales"], "c_mm", 4, 3, 4),
        node("Add", &["c_b", "c_mm"], &["logits"]),
    ];
    GraphProto {
        name: "tiny-bert".into(),
        node: nodes,
        initializer: init,
        input: inputs(&["input_ids", "attention_mask", "token_type_ids"]),
        output: inputs(&["logits"]),
    }
}

fn transposed(values: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    (0..cols).flat_map(|c| (0..rows).map(move |r| values[r * cols + c])).collect()
}

#[test]
fn tiny_bert_graph_maps_to_hugging_face_names() {
    let dir = tempfile::tempdir().unwrap();
    let onnx = dir.path().join("tiny.onnx");
    std::fs::write(&onnx, model(tiny_bert())).unwrap();
    let m = ragjudge_onnx::read_model(&onnx).unwrap();
    let t: BTreeMap<String, Dense> = ragjudge_onnx::bert_tensors(&m, None).unwrap();
    let names: Vec<&str> = t.keys().map(String::as_str).collect();
    let p = "bert.encoder.layer.0";
    let mut want = vec![
        "bert.embeddings.LayerNorm.bias".to_string(),
        "bert.embeddings.LayerNorm.weight".into(),
        "bert.embeddings.position_embeddings.weight".into(),
        "bert.embeddings.token_type_embeddings.weight".into(),
        "bert.embeddings.word_embeddings.weight".into(),
        "classifier.bias".into(),
        "classifier.weight".into(),
    ];
    for s in [
        "attention.output.LayerNorm",
        "attention.output.dense",
        "attention.self.key",
        "attention.self.query",
        "attention.self.value",
        "intermediate.dense",
        "output.LayerNorm",
        "output.dense",
    ] {
        want.push(format!("{p}.{s}.bias"));
        want.push(format!("{p}.{s}.weight"));
    }
    want.sort();
    assert_eq!(names, want);

    let get = |n: &str| &t[n];
    // Word embeddings: (q - 10) · 0.5 for q = 0..23 -> -5, -4.5, ..., 6.5.
    let we = get("bert.embeddings.word_embeddings.weight");
    assert_eq!(we.shape, [V, H]);
    assert_eq!(we.values[0], -5.0);
    assert_eq!(we.values[23], 6.5);
    assert_eq!(get("bert.embeddings.position_embeddings.weight").values, ramp(100.0, P * H));
    assert_eq!(get("bert.embeddings.token_type_embeddings.weight").values, ramp(200.0, 2 * H));
    assert_eq!(get("bert.embeddings.LayerNorm.weight").values, ramp(1.0, H));
    // Query/key/value told apart by the attention MatMuls, whatever their node order; MatMul
    // weights [K, N] are transposed to [N, K].
    for (name, base) in [("query", 10.0), ("key", 20.0), ("value", 30.0)] {
        let w = get(&format!("{p}.attention.self.{name}.weight"));
        assert_eq!(w.shape, [H, H]);
        assert_eq!(w.values, transposed(&ramp(base, H * H), H, H), "{name}");
        assert_eq!(get(&format!("{p}.attention.self.{name}.bias")).values, ramp(base + 5.0, H), "{name}");
    }
    assert_eq!(get(&format!("{p}.attention.output.dense.weight")).values, [0.5; H * H]);
    assert_eq!(get(&format!("{p}.attention.output.dense.bias")).values, ramp(40.0, H));
    assert_eq!(get(&format!("{p}.attention.output.LayerNorm.bias")).values, ramp(4.0, H));
    // Gemm with transB = 1 keeps its [N, K] weight.
    assert_eq!(get(&format!("{p}.intermediate.dense.weight")).shape, [I, H]);
    assert_eq!(get(&format!("{p}.intermediate.dense.weight")).values, ramp(50.0, I * H));
    assert_eq!(get(&format!("{p}.output.dense.weight")).shape, [H, I]);
    assert_eq!(get(&format!("{p}.output.dense.weight")).values, transposed(&ramp(60.0, I * H), I, H));
    assert_eq!(get(&format!("{p}.output.LayerNorm.weight")).values, ramp(5.0, H));
    let c = get("classifier.weight");
    assert_eq!(c.shape, [L, H]);
    assert_eq!(c.values, [-8.0, -7.0, -6.0, -5.0].repeat(L));
    assert_eq!(get("classifier.bias").values, [0.5, 0.25, 0.125]);

    // The whole conversion writes a safetensors file with the same tensors.
    let out = dir.path().join("model.safetensors");
    let report = ragjudge_onnx::convert_bert(&onnx, &out).unwrap();
    assert_eq!((report.tensors, report.layers, report.labels), (want.len(), 1, L));
    let bytes = std::fs::read(&out).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let view = st.tensor("classifier.weight").unwrap();
    assert_eq!(view.shape(), [L, H]);
    assert_eq!(&view.data()[..4], (-8.0f32).to_le_bytes());
    // Converting twice gives the same bytes (the manifest pins the output's sha256).
    ragjudge_onnx::convert_bert(&onnx, &dir.path().join("again.safetensors")).unwrap();
    assert_eq!(std::fs::read(dir.path().join("again.safetensors")).unwrap(), bytes);
}

#[test]
fn graphs_that_are_not_bert_are_refused() {
    // Dropping the key projection breaks the per-layer pattern.
    let mut g = tiny_bert();
    g.node.retain(|n| n.output[0] != "k_mm");
    let m = ModelProto { graph: Some(g), ..Default::default() };
    let err = ragjudge_onnx::bert_tensors(&m, None).unwrap_err().to_string();
    assert!(err.contains("not a BERT encoder"), "{err}");
    // Without a token-type lookup.
    let mut g = tiny_bert();
    g.node.retain(|n| n.output[0] != "te");
    let m = ModelProto { graph: Some(g), ..Default::default() };
    let err = ragjudge_onnx::bert_tensors(&m, None).unwrap_err().to_string();
    assert!(err.contains("token_type_embeddings"), "{err}");
}

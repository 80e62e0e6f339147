//! Converts a BERT ONNX export into a Hugging Face model directory.
//!
//! Usage: `cargo run -p ragjudge-onnx --example convert_bert -- MODEL.onnx CONFIG.json TOKENIZER.json OUT_DIR`

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [onnx, config, tokenizer, out] = &args[..] else {
        eprintln!("usage: convert_bert MODEL.onnx CONFIG.json TOKENIZER.json OUT_DIR");
        std::process::exit(2);
    };
    let start = std::time::Instant::now();
    match ragjudge_onnx::convert_bert_dir(Path::new(onnx), Path::new(config), Path::new(tokenizer), Path::new(out)) {
        Ok(r) => println!(
            "{} tensors, {} layers, {} labels, {} bytes in {:.2} s",
            r.tensors,
            r.layers,
            r.labels,
            r.bytes,
            start.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

//! Runs the `e5-container` conversion of a local `e5-small-q4.bin` and prints each output's size
//! and sha256 (the values the manifest pins).
//!
//! `cargo run -p ragjudge-store --release --example convert_e5 -- e5-small-q4.bin OUT_DIR`

use ragjudge_store::pull::sha256_file;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out] = args.as_slice() else {
        eprintln!("usage: convert_e5 e5-small-q4.bin OUT_DIR");
        std::process::exit(2);
    };
    let out = Path::new(out);
    std::fs::create_dir_all(out).unwrap();
    if let Err(e) = ragjudge_store::e5::convert(Path::new(input), out) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    for f in ragjudge_store::e5::OUTPUTS {
        let p = out.join(f);
        println!("{f} {} {}", std::fs::metadata(&p).unwrap().len(), sha256_file(&p).unwrap());
    }
}

//! Writes every sample chart as SVG and PNG into the directory given as the first argument.
//!
//! `cargo run -p ragjudge-charts --example render_all -- /tmp/charts-look`

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: render_all DIR")?);
    std::fs::create_dir_all(&dir)?;
    for (name, chart) in common::all().into_iter().chain(common::stress()) {
        let size = chart.suggested_size();
        for ext in ["svg", "png"] {
            let path = dir.join(format!("{name}.{ext}"));
            ragjudge_charts::write_chart(&chart, &path, size)?;
            println!("{}", path.display());
        }
    }
    Ok(())
}
